import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectWith, runInProcess } from './helpers.js';

let project: Awaited<ReturnType<typeof projectWith>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('import wordpress', () => {
  it('writes articles, pages, categories and users, and says what it skipped', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/ in \d+\.\ds:/, ' in Xs:')).toBe(
      [
        'Imported WordPress export export.xml into content/ in Xs:',
        '  articles        4 written',
        '  pages           1 written',
        '  categories      3 written',
        '  breaking        0 written',
        '  users           2 written',
        'Skipped:',
        '       2  attachments (media stay at their URLs; cms-sync uploads the ones posts use)',
        '       2  comments (cms-sync has no comment records)',
        '       1  menu items (menus are not content records)',
        '       1  items of type `wpcf7_contact_form` (not posts or pages)',
        'Kept verbatim: 1 unknown shortcode ([contact-form-7] x1)',
        'Converted as the old site showed them: typographic punctuation x2',
        'Embeds kept: 2 ({{< youtube >}} x1, <video> x1)',
        "Links to the old site's posts and pages: 1 rewritten to their new paths",
        'Warning: post 23 "Scheduled: budget preview" is scheduled on the old site; imported as a draft: ' +
          'publish it when it is due',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
  });

  it(
    'converts a classic-editor post: paragraphs, caption, gallery, embed, unknown shortcode, featured ' +
      'image',
    async () => {
      project = await projectWith('wordpress/export.xml', 'export.xml');
      await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
      expect(await project.read('content/articles/flood-warning.md')).toBe(
        [
          '---',
          'title: Flood warning for the valley – what you need to know',
          'date: 2024-03-01T08:30:00.000Z',
          'category: local',
          'tags:',
          '  - news',
          '  - rivers',
          'excerpt: The river rose two metres & more.',
          "featured_image: 'http://media.test/uploads/river.png'",
          'author: anna',
          '---',
          '',
          'The river rose **two metres** overnight.\\',
          'Residents were told to stay home.',
          '',
          '![Map of the flooded area](http://media.test/uploads/flood-map.png "large")',
          '',
          '_The flooded area on Friday_',
          '',
          '- ![](http://media.test/uploads/flood-map.png)',
          '- ![](http://media.test/uploads/river.png)',
          '',
          '{{< youtube abc123 >}}',
          '',
          '\\[contact-form-7 id="42" title="Tips: send us yours"]',
          '',
          'Read more on [our about page](/pages/about/).',
          '',
        ].join('\n'),
      );
    },
  );

  it('converts a block-editor post with a percent-encoded unicode slug, and CDATA title with quotes', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(await project.read('content/articles/café-opens.md')).toBe(
      [
        '---',
        // WordPress showed its titles texturized, as it showed its posts.
        `title: 'Café opens: “espresso” & more'`,
        'date: 2024-03-02T09:00:00.000Z',
        'category: café-culture',
        'author: bob',
        '---',
        '',
        'The new café on _Main Street_ opened today.',
        '',
        '![The café](http://media.test/uploads/river.png)',
        '',
        '- Coffee',
        '- Cake',
        '',
      ].join('\n'),
    );
  });

  it('keeps drafts as drafts, slugs them from the title, and keeps category parents', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(await project.read('content/articles/ünïcödé-draft-with-no-slug-yet.md')).toBe(
      [
        '---',
        'title: Ünïcödé draft with no slug yet',
        'date: 2024-03-03T12:00:00.000Z',
        'draft: true',
        'author: bob',
        '---',
        '',
        'Work in progress.',
        '',
        '<video controls src="https://videos.example.com/clip.mp4">',
        '</video>',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/budget-preview.md')).toContain('draft: true\n');
    expect(await project.read('content/categories/local.md')).toBe('---\nname: Local\nparent: news\n---\n');
    expect(await project.read('content/categories/news.md')).toBe(
      "---\nname: News\ndescription: 'All the news: local & national'\n---\n",
    );
    expect(await project.read('content/categories/café-culture.md')).toBe('---\nname: Café & culture\n---\n');
    expect(await project.read('content/users/anna.md')).toBe(
      '---\nname: Anna Łukasiewicz\nemail: anna@example.com\n---\n',
    );
    expect(await project.read('content/users/bob.md')).toBe(
      '---\nname: Bob Stone\nemail: bob@example.com\n---\n',
    );
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About us\n---\n\nWe report on the valley.\n\nFounded in 1998.\n',
    );
  });

  it('never overwrites an existing file without --force, and names each one', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    await writeFile(path.join(project.dir, 'content/pages/about.md'), '---\ntitle: Mine\n---\n');
    const again = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('  pages           0 written\n');
    expect(again.stdout).toContain(
      'Not overwritten (10 existing files; --force overwrites):\n  content/categories/news.md\n',
    );
    expect(again.stdout).toContain('\n  content/pages/about.md\n');
    expect(await project.read('content/pages/about.md')).toBe('---\ntitle: Mine\n---\n');

    const forced = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml', '--force']);
    expect(forced.stdout).toContain('  pages           1 written\n');
    expect(await project.read('content/pages/about.md')).toContain('title: About us');
  });

  it('reports malformed XML with file:line:column, exits 1 and writes nothing', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const text = await project.read('export.xml');
    // Break the closing tag of the "About us" page's title.
    const broken = text.replace('<title>About us</title>', '<title>About us</titel>');
    await writeFile(path.join(project.dir, 'export.xml'), broken);
    const line = broken.split('\n').findIndex((l) => l.includes('About us</titel>')) + 1;
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `export.xml:${line}:18: Expected closing tag 'title' (opened in line ${line}, col 3) instead of closing tag ` +
        `'titel'. (the export is not well-formed XML; nothing was written)\n`,
    );
    expect(await readdir(project.dir)).toEqual(['export.xml']);
  });

  it('reports malformed XML after the items at its line in the file', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const broken = (await project.read('export.xml')).replace('</channel>', '</chanel>');
    await writeFile(path.join(project.dir, 'export.xml'), broken);
    const lines = broken.split('\n');
    const line = lines.findIndex((l) => l.includes('</chanel>')) + 1;
    const opened = lines.findIndex((l) => l.includes('<channel>')) + 1;
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `export.xml:${line}:1: Expected closing tag 'channel' (opened in line ${opened}, col 1) instead of closing ` +
        `tag 'chanel'. (the export is not well-formed XML; nothing was written)\n`,
    );
    expect(await readdir(project.dir)).toEqual(['export.xml']);
  });

  it('reports an item that cannot be written and goes on with the rest (exit 1)', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const text = await project.read('export.xml');
    await writeFile(
      path.join(project.dir, 'export.xml'),
      text.replace('<![CDATA[budget-preview]]>', '<![CDATA[budget%2Fpreview]]>'),
    );
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('  articles        3 written\n');
    expect(run.stdout).toContain(
      'Failed (1):\n  post 23 "Scheduled: budget preview": its slug `budget/preview` contains "/", "\\" or a NUL ' +
        'character\n',
    );
  });
});

describe('import wordpress (WXR 1.1)', () => {
  it(
    'decodes entities in titles, percent-encoded Cyrillic slugs, resolves relative images, keeps protected posts as ' +
      'drafts',
    async () => {
      project = await projectWith('wordpress/wxr-1.1.xml', 'old.xml');
      const run = await runInProcess(project.dir, ['import', 'wordpress', 'old.xml']);
      expect(run.code).toBe(0);
      expect(await project.read('content/articles/привет.md')).toBe(
        [
          '---',
          'title: Tom & Jerry’s “day” out',
          'date: 2012-01-02T03:04:05.000Z',
          'draft: true',
          'author: admin',
          '---',
          '',
          'Hello & welcome.\\',
          'See ![cat](http://blog.example.org/files/2012/01/cat.jpg)',
          '',
        ].join('\n'),
      );
      expect(run.stdout).toContain(
        '       1  terms of custom taxonomies (wp:term)\n       2  post terms of other taxonomies (post formats, ' +
          'custom taxonomies)\n',
      );
      expect(run.stdout).toContain(
        `Warning: post 5 "Tom & Jerry’s "day" out" is password-protected on the old site; imported as a draft\n`,
      );
    },
  );
});
