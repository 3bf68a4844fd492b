import { afterEach, describe, expect, it } from 'vitest';
import { createProject, png, type Project } from './harness.js';

const article = (title: string, body: string[]) =>
  ['---', `title: ${title}`, '---', '', ...body, ''].join('\n');

describe('alt text, title and captions of images', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'sends alt and title with the upload, keeps one upload for a file used with two alts, edits the media ' +
      'record when the alt changes, and keeps captions in the body',
    async () => {
      project = await createProject({
        'content/images/river.png': png(1),
        'content/images/bridge.png': png(2),
        'content/articles/one.md': article('One', ['![River at dawn](../images/river.png "High water")']),
        'content/articles/two.md': article('Two', ['Intro.', '', '![Another alt](../images/river.png)']),
        'content/articles/three.md': article('Three', [
          '{{< figure src="../images/bridge.png" alt="Bridge" caption="The *old* bridge" >}}',
        ]),
      });
      const first = await project.run(['apply']);
      expect(first.code, first.stderr).toBe(0);
      // The file is uploaded once; the media record has the alt of the first record by key.
      expect(project.cms.stats().byAction['media.upload_from_url']).toBe(2);
      const media = await project.records('media');
      expect(media.map((m) => [m.filename, m.alt, m.title])).toEqual(
        expect.arrayContaining([
          ['river.png', 'River at dawn', 'High water'],
          ['bridge.png', 'Bridge', null],
        ]),
      );
      expect(media).toHaveLength(2);
      // The other use is told, at its line, that its alt does not reach the CMS.
      expect(first.stderr).toMatch(
        /content\/articles\/two\.md:7:1: warning: image `content\/images\/river\.png` has alt "Another alt" here, .*"River at dawn" \(from article\/one\)/,
      );
      const river = media.find((m) => m.filename === 'river.png')!;
      const bridge = media.find((m) => m.filename === 'bridge.png')!;
      const bodies = Object.fromEntries(
        (await project.records('article')).map((r) => [r.slug, String(r.body)]),
      );
      expect(bodies.one).toContain(
        `<dynamic-block data-id="${river.id}" data-type="media" data-size="medium" contenteditable="false">` +
          '</dynamic-block>\n<p class="caption">High water</p>',
      );
      expect(bodies.three).toContain(
        `<dynamic-block data-id="${bridge.id}" data-type="media" data-size="medium" contenteditable="false">` +
          '</dynamic-block>\n<p class="caption">The <em>old</em> bridge</p>',
      );
      expect(bodies.three).not.toContain('<figure>');
      // The local CMS shows them on the media record's page.
      const page = await (await fetch(`${project.cms.url}/view/media/${river.id}`)).text();
      expect(page).toContain('alt="River at dawn" title="High water"');

      project.cms.resetStats();
      const rerun = await project.run(['apply']);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(project.cms.stats().writes).toBe(0);

      // A new alt in the record that gave the media record its text: an edit of that media record, no upload.
      await project.write(
        'content/articles/one.md',
        article('One', ['![River in flood](../images/river.png "High water")']),
      );
      project.cms.resetStats();
      const changed = await project.run(['apply']);
      expect(changed.code, changed.stderr).toBe(0);
      expect(changed.stdout).toMatch(/~ media content\/images\/river\.png/);
      expect(project.cms.stats().byAction['media.edit']).toBe(1);
      expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();
      const edited = (await project.records('media')).find((m) => m.id === river.id)!;
      expect([edited.alt, edited.title]).toEqual(['River in flood', 'High water']);
      expect(await project.records('media')).toHaveLength(2);

      project.cms.resetStats();
      const again = await project.run(['apply']);
      expect(again.code, again.stderr).toBe(0);
      expect(project.cms.stats().writes).toBe(0);
    },
  );

  it('sends alt and title under the field names of wire.mediaAltField / mediaTitleField; none with false', async () => {
    project = await createProject({
      'sync.config.ts':
        "export default { wire: { mediaTitleField: false }, markdown: { captions: 'figure' } };\n",
      'content/images/river.png': png(3),
      'content/articles/one.md': article('One', ['![River](../images/river.png "Caption here")']),
    });
    const result = await project.run(['apply']);
    expect(result.code, result.stderr).toBe(0);
    const media = (await project.records('media'))[0]!;
    expect([media.alt, media.title]).toEqual(['River', null]);
    const record = (await project.records('article'))[0]!;
    expect(record.body).toContain('</dynamic-block><figcaption>Caption here</figcaption></figure>');
  });
});
