import { readdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectWith, runInProcess } from './helpers.js';

let project: Awaited<ReturnType<typeof projectWith>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('import ghost', () => {
  it('writes posts, pages, tags as categories and users; resolves __GHOST_URL__ with --ghost-url', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    const run = await runInProcess(project.dir, [
      'import',
      'ghost',
      'ghost.json',
      '--ghost-url',
      'https://old.example.com/',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/ in \d+\.\ds:/, ' in Xs:')).toBe(
      [
        'Imported Ghost export ghost.json into content/ in Xs:',
        '  articles        4 written',
        '  pages           1 written',
        '  categories      2 written',
        '  breaking        0 written',
        '  users           1 written',
        'Skipped:',
        '       1  internal tags (#name: Ghost uses them for themes, not as categories)',
        'Converted as the old site showed them: bodies rendered from lexical (the export has no html) x1, bodies ' +
          'rendered from mobiledoc (the export has no html) x1',
        'Embeds kept: 1 (HTML cards x1)',
        "Links to the old site's posts and pages: 0 rewritten to their new paths, 1 left as they were (no " +
          'imported post or page there):',
        '  post p1 "Bridge reopens after repairs": https://old.example.com/tag/transport/',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/bridge-reopens.md')).toBe(
      [
        '---',
        'title: Bridge reopens after repairs',
        'date: 2024-03-05T07:15:00.000Z',
        'category: transport',
        'tags:',
        '  - local',
        "excerpt: 'Open again: the old bridge.'",
        "featured_image: 'https://old.example.com/content/images/2024/03/bridge.png'",
        'author: cleo',
        '---',
        '',
        'The [old bridge](https://old.example.com/tag/transport/) is open again.',
        '',
        // An HTML card, kept as its author wrote it.
        '<p>Traffic is <em>light</em>.</p>',
        '',
        '![The bridge](https://old.example.com/content/images/2024/03/bridge.png)',
        '',
        '_Photo: **Valley News**_',
        '',
      ].join('\n'),
    );
    expect(await project.read('content/articles/żółć-draft.md')).toBe(
      "---\ntitle: 'Żółć: a unicode draft'\ndate: 2024-03-06T10:00:00.000Z\ndraft: true\n---\n\nNot ready.\n",
    );
    expect(await project.read('content/articles/lexical-only.md')).toBe(
      '---\ntitle: Lexical only\ndate: 2024-03-07T11:00:00.000Z\n---\n\nFirst \\*para\\*.\n\nSecond para.\n',
    );
    expect(await project.read('content/users/cleo.md')).toBe(
      '---\nname: Cleo Park\nemail: cleo@example.com\nbio: Transport reporter.\n---\n',
    );
    expect(await project.read('content/categories/transport.md')).toBe(
      "---\nname: Transport\ndescription: 'Roads, rail and bridges'\n---\n",
    );
    expect(await project.read('content/pages/contact.md')).toBe(
      '---\ntitle: Contact\n---\n\nWrite to us.\n\n![Map](https://old.example.com/content/images/map.png)\n',
    );
  });

  it('without --ghost-url leaves links relative, warns once, and writes relative images as links', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    const run = await runInProcess(project.dir, ['import', 'ghost', 'ghost.json']);
    expect(run.stdout.match(/__GHOST_URL__/g)).toHaveLength(1);
    expect(run.stdout).toContain(
      'Warning: post p1 "Bridge reopens after repairs": image `/content/images/2024/03/bridge.png` has no absolute ' +
        'URL; written as a link\n',
    );
    const body = await project.read('content/articles/bridge-reopens.md');
    expect(body).toContain('The [old bridge](/tag/transport/) is open again.');
    expect(body).toContain('[The bridge](/content/images/2024/03/bridge.png)');
    expect(body).not.toContain('![');
  });

  it('reports malformed JSON with file:line:column, exits 1 and writes nothing', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    await writeFile(
      path.join(project.dir, 'ghost.json'),
      '{\n  "db": [\n    { "data": { "posts": [], } }\n  ]\n}\n',
    );
    const run = await runInProcess(project.dir, ['import', 'ghost', 'ghost.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "ghost.json:3:30: expected a property name in double quotes, found '}' (the export is not valid JSON; nothing " +
        'was written)\n',
    );
    expect(await readdir(project.dir)).toEqual(['ghost.json']);
  });

  it('says an export that ends inside a value was cut short', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    await writeFile(path.join(project.dir, 'ghost.json'), '{"db":[{"data":{"posts":[{"id":');
    const run = await runInProcess(project.dir, ['import', 'ghost', 'ghost.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'ghost.json:1:32: the file ends inside a value (was it cut short?) (the export is not valid JSON; nothing ' +
        'was written)\n',
    );
  });

  it('refuses an export too large to read as one text, before reading it, saying what to do', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    // Sparse: as large as it says, without the disk or the time to write it.
    await truncate(path.join(project.dir, 'ghost.json'), 600 * 2 ** 20);
    const run = await runInProcess(project.dir, ['import', 'ghost', 'ghost.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^ghost\.json: the export is 600 MiB, more than can be read as one JSON text \(512 MiB\); nothing was written\. /,
    );
    expect(run.stderr).toContain("jq '.db[0].data.posts |= map(");
    expect(run.stderr).not.toContain('    at ');
    expect(await readdir(project.dir)).toEqual(['ghost.json']);
  });

  it('refuses an unknown export type', async () => {
    project = await projectWith('ghost/export.json', 'ghost.json');
    const run = await runInProcess(project.dir, ['import', 'drupal', 'ghost.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Unknown export type `drupal`');
  });
});
