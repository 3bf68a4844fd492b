import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const post = (id: string, slug: string, more: Record<string, unknown>) => ({
  id,
  title: slug,
  slug,
  html: '<p>Text.</p>',
  status: 'published',
  visibility: 'public',
  type: 'post',
  created_at: '2020-01-01T00:00:00.000Z',
  ...more,
});

async function importGhost(
  data: Record<string, unknown>,
): Promise<{ stdout: string; read: (f: string) => Promise<string> }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-ghost-'));
  const exported = { db: [{ meta: { exported_on: 1709280000000, version: '5.80.0' }, data }] };
  await writeFile(path.join(dir, 'ghost.json'), JSON.stringify(exported));
  const run = await runInProcess(dir, [
    'import',
    'ghost',
    'ghost.json',
    '--ghost-url',
    'https://old.example',
  ]);
  expect(run.code).toBe(0);
  return { stdout: run.stdout, read: (f) => readFile(path.join(dir!, f), 'utf8') };
}

describe('import ghost: what real exports hold', () => {
  it('writes every author in order, reads 0.x millisecond dates, reports scheduled and email-only posts', async () => {
    const { stdout, read } = await importGhost({
      posts: [
        post('p1', 'two-authors', { published_at: '2024-03-01T09:00:00.000Z' }),
        post('p2', 'old-dates', { published_at: 1388318310782, created_at: 1388318310000 }),
        post('p3', 'later', { status: 'scheduled', published_at: '2031-01-01T08:00:00.000Z' }),
        post('p4', 'newsletter', { status: 'sent', published_at: '2024-02-01T08:00:00.000Z' }),
      ],
      users: [
        { id: 'u1', slug: 'ben', name: 'Ben' },
        { id: 'u2', slug: 'ann', name: 'Ann' },
      ],
      posts_authors: [
        { post_id: 'p1', author_id: 'u2', sort_order: 1 },
        { post_id: 'p1', author_id: 'u1', sort_order: 0 },
        { post_id: 'p2', author_id: 'u2', sort_order: 0 },
      ],
    });
    expect(await read('content/articles/two-authors.md')).toContain('authors:\n  - ben\n  - ann\n');
    expect(await read('content/articles/old-dates.md')).toContain('date: 2013-12-29T11:58:30.782Z\n');
    expect(await read('content/articles/old-dates.md')).toContain('author: ann\n');
    expect(await read('content/articles/later.md')).toContain('draft: true\n');
    expect(await read('content/articles/newsletter.md')).toContain('draft: true\n');
    expect(stdout).toContain(
      'is scheduled on the old site for 2031-01-01T08:00:00.000Z; imported as a draft: publish it when it is due',
    );
    expect(stdout).toContain('was sent as an email only, never shown on the site; imported as a draft');
  });

  it('keeps template syntax a post shows as text for sync', async () => {
    const { read } = await importGhost({
      posts: [post('p1', 'liquid', { html: '<p>Prefix links with {{ site.baseurl }} in Jekyll.</p>' })],
    });
    expect(await read('content/articles/liquid.md')).toContain(
      'Prefix links with &#123;&#123; site.baseurl }} in Jekyll.\n',
    );
  });

  it('makes bookmark, toggle and file cards what a reader took from them, with no icons or thumbnails', async () => {
    const html =
      '<p>Read this:</p><figure class="kg-card kg-bookmark-card kg-card-hascaption"><a class="kg-bookmark-container" ' +
      'href="https://ghost.org/docs/"><div class="kg-bookmark-content"><div class="kg-bookmark-title">Ghost Docs</div>' +
      '<div class="kg-bookmark-description">Everything you need to know.</div><div class="kg-bookmark-metadata">' +
      '<img class="kg-bookmark-icon" src="https://ghost.org/favicon.ico" alt=""><span class="kg-bookmark-author">Ghost' +
      '</span></div></div><div class="kg-bookmark-thumbnail"><img src="https://ghost.org/thumb.png" alt=""></div></a>' +
      '<figcaption>Our docs</figcaption></figure>' +
      '<div class="kg-card kg-toggle-card" data-kg-toggle-state="close"><div class="kg-toggle-heading">' +
      '<h4 class="kg-toggle-heading-text"><span>What is a toggle?</span></h4><button class="kg-toggle-card-icon">' +
      '<svg viewBox="0 0 24 24"><path d="M23"></path></svg></button></div><div class="kg-toggle-content">' +
      '<p>The <em>answer</em>.</p></div></div>' +
      '<div class="kg-card kg-file-card"><a class="kg-file-card-container" href="https://old.example/content/files/r.pdf" ' +
      'download><div class="kg-file-card-contents"><div class="kg-file-card-title">Annual report</div>' +
      '<div class="kg-file-card-caption">The 2023 report</div><div class="kg-file-card-metadata">' +
      '<div class="kg-file-card-filename">r.pdf</div><div class="kg-file-card-filesize">12 KB</div></div></div>' +
      '<div class="kg-file-card-icon"><svg viewBox="0 0 24 24"><title>download</title></svg></div></a></div>';
    const { read, stdout } = await importGhost({ posts: [post('p1', 'cards', { html })] });
    const text = await read('content/articles/cards.md');
    expect(text.slice(text.indexOf('\n---\n', 4) + 5).trim()).toBe(
      [
        'Read this:',
        '',
        '[**Ghost Docs**](https://ghost.org/docs/)',
        '',
        'Everything you need to know.',
        '',
        '_Our docs_',
        '',
        '**What is a toggle?**',
        '',
        'The _answer_.',
        '',
        '[Annual report](https://old.example/content/files/r.pdf)',
        '',
        '_The 2023 report_',
      ].join('\n'),
    );
    expect(stdout).not.toContain('svg');
  });
});
