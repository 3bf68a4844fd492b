import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, png, type Project } from './harness.js';

const article = (title: string, body: string[], extra: string[] = []) =>
  ['---', `title: ${title}`, ...extra, '---', '', ...body, ''].join('\n');

/** A loopback port nothing listens on: the CMS's fetch of an image there is refused at once. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// One attempt per request: the CMS's 502 for an unreachable image is not waited out six times.
const config = (onMissing?: string) => {
  const media = onMissing ? `, media: { onMissing: '${onMissing}' }` : '';
  return `export default { sync: { retry: { maxAttempts: 1 } }${media} };\n`;
};

describe('images that cannot be had (media.onMissing)', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  // Each mode takes a local file that is missing and a remote image the CMS cannot fetch in the same
  // project: the runs a mode needs show both.
  it(
    "'error' (default): a missing local file skips its record with an error at the image; a remote image " +
      'the CMS cannot fetch is named with its record, remembered, not sent again on the next run, and sent ' +
      'again with --retry-failed-media',
    async () => {
      const url = `http://127.0.0.1:${await deadPort()}/photo.png`;
      project = await createProject({
        'sync.config.ts': config(),
        'content/articles/gone.md': article('Gone', ['Intro.', '', '![Gone](../images/nope.png)']),
        'content/articles/remote.md': article('Remote', ['Intro.', '', `![Photo](${url})`]),
        'content/articles/fine.md': article('Fine', ['No images.']),
      });
      const first = await project.run(['apply']);
      expect(first.code).toBe(1);
      expect(first.stderr).toMatch(
        /content\/articles\/gone\.md:7:1: image `\.\.\/images\/nope\.png` not found \(looked for content\/images\/nope\.png\)/,
      );
      expect(first.stderr).toContain(
        `content/articles/remote.md: article/remote: not written: content/articles/remote.md:7:1: upload of ${url} ` +
          'failed:',
      );
      expect(project.cms.stats().byAction['media.upload_from_url']).toBe(1);
      // Neither the record of the missing file nor that of the failed upload.
      expect((await project.records('article')).map((r) => r.slug)).toEqual(['fine']);
      const memory = JSON.parse(await project.read('.cms-sync/failed-media.json'));
      expect(Object.keys(memory.failures)).toEqual([url]);
      expect(Date.parse(memory.failures[url].at)).not.toBeNaN();

      project.cms.resetStats();
      const second = await project.run(['apply']);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `content/articles/remote\\.md:7:1: image \`${url.replace(/\./g, '\\.')}\` could not be uploaded at ` +
            '\\S+ .*tried again after \\S+, or now with --retry-failed-media',
        ),
      );
      expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();

      project.cms.resetStats();
      const retried = await project.run(['apply', '--retry-failed-media']);
      expect(retried.code).toBe(1);
      expect(project.cms.stats().byAction['media.upload_from_url']).toBe(1);
    },
  );

  it(
    "'warn': a missing local file is published with a plain <img>, a warning every run, no write until the " +
      'file is added; a remote image the CMS cannot fetch is a plain <img> of the URL at once, then not sent',
    async () => {
      const url = `http://127.0.0.1:${await deadPort()}/photo.png`;
      project = await createProject({
        'sync.config.ts': config('warn'),
        'content/articles/gone.md': article('Gone', ['![Gone](../images/nope.png "Lost")']),
        'content/articles/remote.md': article('Remote', [`![Photo](${url})`]),
      });
      const first = await project.run(['apply']);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toMatch(
        /content\/articles\/gone\.md:5:1: warning: image `\.\.\/images\/nope\.png` not found .*published as a plain <img>/,
      );
      expect(first.stderr).toContain(`content/articles/remote.md:5:1: upload of ${url} failed:`);
      expect(first.stderr).toMatch(/published as a plain <img> of its URL \(media\.onMissing: 'warn'\)/);
      const body = async (slug: string) =>
        (await project!.records('article')).find((r) => r.slug === slug)!.body;
      // The caption (the image's title) stays with it.
      expect(await body('gone')).toBe(
        '<img src="../images/nope.png" alt="Gone" title="Lost">\n<p class="caption">Lost</p>',
      );
      expect(await body('remote')).toBe(`<img src="${url}" alt="Photo">`);

      project.cms.resetStats();
      const rerun = await project.run(['apply']);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toMatch(/gone\.md:5:1: warning: image/);
      expect(rerun.stderr).toMatch(/remote\.md:5:1: warning: image `http:.*could not be uploaded at/);
      expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();
      expect(project.cms.stats().writes).toBe(0);

      // The file is added: the next run finds it, uploads it, and the record gets its block.
      await project.write('content/images/nope.png', png(4));
      const found = await project.run(['apply']);
      expect(found.code, found.stderr).toBe(0);
      const media = await project.records('media');
      expect(media).toHaveLength(1);
      expect(await body('gone')).toContain(`<dynamic-block data-id="${media[0]!.id}"`);
    },
  );

  it("'drop': a missing local file, and a remote image the CMS cannot fetch, published without it", async () => {
    const url = `http://127.0.0.1:${await deadPort()}/photo.png`;
    project = await createProject({
      'sync.config.ts': config('drop'),
      'content/articles/gone.md': article('Gone', [
        'Before.',
        '',
        '![Gone](../images/nope.png)',
        '',
        'After.',
      ]),
      'content/articles/remote.md': article('Remote', ['Text.', '', `![Photo](${url})`]),
    });
    const first = await project.run(['apply']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/gone\.md:7:1: warning: .*published without the image/);
    expect(first.stderr).toMatch(/remote\.md:7:1: .*published without it \(media\.onMissing: 'drop'\)/);
    const bodies = Object.fromEntries((await project.records('article')).map((r) => [r.slug, r.body]));
    expect(bodies).toEqual({ gone: '<p>Before.</p>\n\n<p>After.</p>', remote: '<p>Text.</p>\n' });
    project.cms.resetStats();
    const second = await project.run(['apply']);
    expect(second.code, second.stderr).toBe(0);
    expect(project.cms.stats().writes).toBe(0);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();
  });

  it('apply uploads no image of a file that is skipped (bad front matter, unknown category)', async () => {
    project = await createProject({
      'content/images/a.png': png(5),
      'content/images/b.png': png(6),
      'content/articles/typo.md': article('Typo', ['![A](../images/a.png)'], ['Draft: true']),
      'content/articles/nocat.md': article('No category', ['![B](../images/b.png)'], ['category: nowhere']),
    });
    const plan = await project.run(['plan']);
    expect(plan.stdout).toMatch(/0 to upload/);
    expect(plan.stdout).not.toMatch(/\^ upload/);
    const result = await project.run(['apply']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/typo\.md:3:1: .*did you mean `draft`/);
    expect(result.stderr).toMatch(/nocat\.md:3:1: category `nowhere` does not exist/);
    expect(project.cms.stats().byAction['media.upload_from_url']).toBeUndefined();
    expect(await project.records('media')).toHaveLength(0);
  });
});
