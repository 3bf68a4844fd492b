import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWith, runInProcess, type Run } from './helpers.js';

// One import of the theme-unit-like export, read by every test below.
let project: Awaited<ReturnType<typeof projectWith>>;
let run: Run;
beforeAll(async () => {
  project = await projectWith('wordpress/theme-unit.xml', 'export.xml');
  run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
});
afterAll(() => project.close());

const bodyOf = (text: string) => text.slice(text.indexOf('\n---\n') + 5);

describe('import wordpress: embeds, statuses, slugs, links (theme unit test export)', () => {
  it('reports what it kept, what it left out by kind with the items, renames, links and drafts', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/ in \d+\.\ds:/, ' in Xs:')).toBe(
      [
        'Imported WordPress export export.xml into content/ in Xs:',
        '  articles        6 written',
        '  pages           2 written',
        '  categories      3 written',
        '  breaking        0 written',
        '  users           1 written',
        'Skipped:',
        '       1  attachments (media stay at their URLs; cms-sync uploads the ones posts use)',
        'Embeds kept: 11 ({{< vimeo >}} x2, {{< x >}} x1, {{< youtube >}} x2, <audio> x2, <script> x1, <video> x2, ' +
          'Custom HTML blocks x1)',
        'Left out (no place for them in Markdown or the CMS):',
        '       1  embedded players from sites with no embed form here (instagram.com; kept as links): post 10 ' +
          '"Block embeds"',
        '       1  gallery images whose attachment is not in the export: post 12 "Classic embeds"',
        '       1  <style> elements (page CSS): post 12 "Classic embeds"',
        'Renamed (1; the slug was already taken by an earlier item of the export):',
        '  post 31 "Hello world, again": articles/hello-world.md is taken; written as articles/hello-world-3.md',
        "Links to the old site's posts and pages: 4 rewritten to their new paths, 1 left as they were (no imported " +
          'post or page there):',
        '  post 10 "Block embeds": https://wpthemetestdata.example/2019/05/never-imported/',
        'Warning: post 20 "Private post" is private on the old site; imported as a draft',
        'Warning: page 21 "Protected page" is password-protected on the old site; imported as a draft',
        'Warning: page 22 "Private page" is private on the old site; imported as a draft',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
  });

  it('keeps block-editor embeds: oEmbed figures as shortcodes; audio, video and iframes as raw HTML', async () => {
    const text = await project.read('content/articles/block-embeds.md');
    expect(bodyOf(text)).toBe(
      [
        '',
        'Players from the block editor.',
        '',
        '{{< youtube YT-block_1 >}}',
        '',
        '_A video caption_',
        '',
        '{{< x user="WordPress" id="1234567890" >}}',
        '',
        '<https://www.instagram.com/p/CxYz123/>',
        '',
        '<figure class="wp-block-audio"><audio controls src="http://media.test/uploads/interview.mp3"></audio>' +
          '<figcaption class="wp-element-caption">The interview</figcaption></figure>',
        '',
        '<figure class="wp-block-video"><video controls src="http://media.test/uploads/clip.mov"></video></figure>',
        '',
        '![The Golden Gate bridge at dusk](http://media.test/uploads/golden-gate.png)',
        '',
        '_Seen from the north_',
        '',
        '<iframe src="https://www.google.com/maps/embed?pb=!1m18" width="600" height="450" loading="lazy"></iframe>',
        '',
        '{{< vimeo 76979871 >}}',
        '',
        'See [the classic post](/articles/classic-embeds/), [the same by id](/articles/classic-embeds/#top), ' +
          '[an old post](https://wpthemetestdata.example/2019/05/never-imported/) and ' +
          '[the third hello](/articles/hello-world-3/).',
        '',
      ].join('\n'),
    );
    expect(text).not.toMatch(/\[\]\(/);
  });

  it('keeps classic [audio], [video], [embed], auto-embedded URLs, <script>, and alt text of attachments', async () => {
    // (How a bare URL that is not an embed is escaped belongs to the HTML -> Markdown step.)
    const body = bodyOf(await project.read('content/articles/classic-embeds.md')).replace(
      'https\\://',
      'https://',
    );
    expect(body).toBe(
      [
        '',
        'Shortcodes and auto-embeds from the classic editor.',
        '',
        '<audio controls src="http://media.test/uploads/song.mp3">',
        '</audio>',
        '',
        '<video controls width="640" height="360">',
        '<source src="http://media.test/uploads/clip.mp4"><source src="http://media.test/uploads/clip.webm">',
        '</video>',
        '',
        '{{< vimeo 22439234 >}}',
        '',
        '{{< youtube id="classic_42" start="90" >}}',
        '',
        'https://example.com/just-a-link',
        '',
        '![The Golden Gate bridge at dusk](http://media.test/uploads/golden-gate.png "large")',
        '',
        '<script src="https://gist.github.com/themedemos/5f1c2a.js"></script>',
        '',
        '- ![The Golden Gate bridge at dusk](http://media.test/uploads/golden-gate.png)',
        '',
        'Back to [the block post](/articles/block-embeds/).',
        '',
      ].join('\n'),
    );
  });

  it('writes sticky, featured image alt and the category; parents of categories', async () => {
    const text = await project.read('content/articles/block-embeds.md');
    expect(text.slice(0, text.indexOf('\n---\n') + 5)).toBe(
      [
        '---',
        'title: Block embeds',
        'date: 2024-01-10T10:00:00.000Z',
        'sticky: true',
        'category: grandchild-category',
        "featured_image: 'http://media.test/uploads/golden-gate.png'",
        'featured_image_alt: The Golden Gate bridge at dusk',
        'author: themedemos',
        '---',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/classic-embeds.md')).not.toContain('sticky');
    expect(await project.read('content/categories/parent-category.md')).toBe(
      '---\nname: Parent Category\n---\n',
    );
    expect(await project.read('content/categories/child-category-01.md')).toBe(
      '---\nname: Child Category 01\nparent: parent-category\n---\n',
    );
    expect(await project.read('content/categories/grandchild-category.md')).toBe(
      '---\nname: Grandchild Category\nparent: child-category-01\n---\n',
    );
  });

  it('makes private and password-protected posts and pages drafts', async () => {
    expect(await project.read('content/articles/private-post.md')).toContain('\ndraft: true\n');
    expect(await project.read('content/pages/private-page.md')).toBe(
      '---\ntitle: Private page\ndraft: true\n---\n\nStaff only.\n',
    );
    expect(await project.read('content/pages/protected-page.md')).toBe(
      '---\ntitle: Protected page\ndraft: true\n---\n\nThe secret page.\n',
    );
  });

  it('writes a duplicate slug as -2, -3..., never taking the slug another item asks for', async () => {
    expect(await readdir(path.join(project.dir, 'content/articles'))).toEqual([
      'block-embeds.md',
      'classic-embeds.md',
      'hello-world-2.md',
      'hello-world-3.md',
      'hello-world.md',
      'private-post.md',
    ]);
    expect(await project.read('content/articles/hello-world.md')).toContain('The first hello.');
    expect(await project.read('content/articles/hello-world-2.md')).toContain(
      'whose own slug is hello-world-2',
    );
    expect(await project.read('content/articles/hello-world-3.md')).toContain('The second hello');
  });

  it('rewrites links with the --link-path pattern', async () => {
    const other = await projectWith('wordpress/theme-unit.xml', 'export.xml');
    try {
      await runInProcess(other.dir, [
        'import',
        'wordpress',
        'export.xml',
        '--link-path',
        '/blog/{slug}.html',
      ]);
      expect(await other.read('content/articles/classic-embeds.md')).toContain(
        'Back to [the block post](/blog/block-embeds.html).',
      );
      const bad = await runInProcess(other.dir, [
        'import',
        'wordpress',
        'export.xml',
        '--link-path',
        '/blog/',
      ]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('Expected `--link-path` to contain {slug}');
    } finally {
      await other.close();
    }
  });
});
