import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { bodyOf, runInProcess } from './helpers.js';

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
  it('writes every author of a post, in its order, as `authors`; one author stays `author`', async () => {
    const { read } = await importGhost({
      posts: [post('p1', 'two-authors', {}), post('p2', 'one-author', {})],
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
    expect(await read('content/articles/two-authors.md')).toContain('authors:\n  - ben\n  - ann\n---\n');
    expect(await read('content/articles/one-author.md')).toContain('author: ann\n---\n');
  });

  it('reports an author the export has no user for, instead of losing it silently', async () => {
    const { stdout, read } = await importGhost({
      posts: [post('p1', 'gone', {})],
      users: [{ id: 'u1', slug: 'ben', name: 'Ben' }],
      posts_authors: [
        { post_id: 'p1', author_id: 'u1', sort_order: 0 },
        { post_id: 'p1', author_id: 'u9', sort_order: 1 },
      ],
    });
    expect(await read('content/articles/gone.md')).toContain('author: ben\n');
    expect(stdout).toContain(
      'Warning: post p1 "gone": author `u9` is not among the export\'s users; left out\n',
    );
  });

  it('reports each scheduled post with its date and each email-only (sent) post, both written as drafts', async () => {
    const { stdout, read } = await importGhost({
      posts: [
        post('p3', 'later', { status: 'scheduled', published_at: '2031-01-01T08:00:00.000Z' }),
        post('p4', 'newsletter', { status: 'sent', published_at: '2024-02-01T08:00:00.000Z' }),
        post('p5', 'paid-later', {
          status: 'scheduled',
          visibility: 'paid',
          published_at: '2031-02-01T08:00:00.000Z',
        }),
        post('p6', 'ghost4-newsletter', { published_at: '2022-02-01T08:00:00.000Z' }),
      ],
      posts_meta: [{ post_id: 'p6', email_only: true }],
    });
    expect(await read('content/articles/ghost4-newsletter.md')).toContain('draft: true\n');
    expect(stdout).toContain(
      'Warning: post p6 "ghost4-newsletter" was sent as an email only, never shown on the site; imported as a ' +
        'draft\n',
    );
    expect(await read('content/articles/later.md')).toContain('draft: true\n');
    expect(await read('content/articles/newsletter.md')).toContain('draft: true\n');
    expect(stdout).toContain(
      'Warning: post p3 "later" is scheduled on the old site for 2031-01-01T08:00:00.000Z; imported as a draft: ' +
        'publish it when it is due\n',
    );
    expect(stdout).toContain(
      'Warning: post p4 "newsletter" was sent as an email only, never shown on the site; imported as a draft\n',
    );
    // Publishing it when due must not make a paid post public: both facts are reported.
    expect(stdout).toContain(
      'Warning: post p5 "paid-later" is for paying members only on the old site (visibility: paid); imported as ' +
        'a draft\n',
    );
    expect(stdout).toContain(
      'Warning: post p5 "paid-later" is scheduled on the old site for 2031-02-01T08:00:00.000Z',
    );
  });

  it('reads Ghost 0.x dates in milliseconds, and zone-less dates as UTC; reports a date it cannot read', async () => {
    // Zone-less text would be read in this machine's zone: make that one that is not UTC.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    onTestFinished(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    const { stdout, read } = await importGhost({
      posts: [
        post('p1', 'millis', { published_at: 1388318310782, created_at: 1388318310000 }),
        post('p2', 'millis-text', { published_at: null, created_at: '1388318310782' }),
        post('p3', 'no-zone', { published_at: '2017-09-08 11:08:12' }),
        post('p4', 'garbled', { published_at: 'soon', created_at: 'never' }),
      ],
    });
    expect(await read('content/articles/millis.md')).toContain('date: 2013-12-29T11:58:30.782Z\n');
    expect(await read('content/articles/millis-text.md')).toContain('date: 2013-12-29T11:58:30.782Z\n');
    expect(await read('content/articles/no-zone.md')).toContain('date: 2017-09-08T11:08:12.000Z\n');
    expect(await read('content/articles/garbled.md')).not.toContain('date:');
    expect(stdout).toContain(
      'Warning: post p4 "garbled": published_at `soon` is not a date; written without a date\n',
    );
  });

  it('keeps template syntax a post shows as text for sync', async () => {
    const { read } = await importGhost({
      posts: [post('p1', 'liquid', { html: '<p>Prefix links with {{ site.baseurl }} in Jekyll.</p>' })],
    });
    expect(await read('content/articles/liquid.md')).toContain(
      'Prefix links with &#123;&#123; site.baseurl }} in Jekyll.\n',
    );
  });

  it('keeps the feature image caption as featured_image_caption (Markdown), from the post or posts_meta', async () => {
    const credit =
      'Photo by <a href="https://unsplash.com/@jo?utm_source=ghost">Jo</a> / <a href="https://unsplash.com">Unsplash</a>';
    const { read } = await importGhost({
      posts: [
        post('p1', 'on-post', {
          feature_image: '__GHOST_URL__/content/images/a.jpg',
          feature_image_caption: credit,
        }),
        post('p2', 'in-meta', { feature_image: 'https://cdn.example/b.jpg' }),
      ],
      posts_meta: [
        { post_id: 'p2', feature_image_alt: 'Boats', feature_image_caption: 'The <em>harbour</em>' },
      ],
    });
    expect(await read('content/articles/on-post.md')).toContain(
      "featured_image: 'https://old.example/content/images/a.jpg'\n" +
        "featured_image_caption: 'Photo by [Jo](https://unsplash.com/@jo?utm_source=ghost) / " +
        "[Unsplash](https://unsplash.com)'\n",
    );
    expect(await read('content/articles/in-meta.md')).toContain(
      "featured_image: 'https://cdn.example/b.jpg'\nfeatured_image_alt: Boats\nfeatured_image_caption: The _harbour_\n",
    );
  });

  it("keeps a page's excerpt, feature image and authors as a post's; lists its tags as not kept", async () => {
    const { read, stdout } = await importGhost({
      posts: [
        {
          ...post('p1', 'about', {
            custom_excerpt: 'Who we are',
            feature_image: '__GHOST_URL__/content/images/team.jpg',
          }),
          type: 'page',
        },
      ],
      posts_meta: [{ post_id: 'p1', feature_image_alt: 'The team' }],
      users: [{ id: 'u1', slug: 'ann', name: 'Ann' }],
      posts_authors: [{ post_id: 'p1', author_id: 'u1', sort_order: 0 }],
      tags: [{ id: 't1', slug: 'hash-wide', name: '#wide' }],
      posts_tags: [{ post_id: 'p1', tag_id: 't1', sort_order: 0 }],
    });
    expect(await read('content/pages/about.md')).toBe(
      [
        '---',
        'title: about',
        'excerpt: Who we are',
        "featured_image: 'https://old.example/content/images/team.jpg'",
        'featured_image_alt: The team',
        'author: ann',
        '---',
        '',
        'Text.',
        '',
      ].join('\n'),
    );
    expect(stdout).toContain('       1  tags of pages: page p1 "about"');
  });

  it('keeps meta_description as description; reports the other search and social fields', async () => {
    const { stdout, read } = await importGhost({
      posts: [
        post('p1', 'old-seo', { meta_description: 'For search engines', og_description: null }),
        post('p2', 'new-seo', {}),
        { ...post('p3', 'team', {}), type: 'page' },
        { ...post('p4', 'about-us', {}), type: 'page' },
      ],
      posts_meta: [
        { post_id: 'p2', og_description: 'For cards', meta_description: null },
        { post_id: 'p3', meta_title: 'Our team' },
        { post_id: 'p4', meta_description: 'Who we are, for search' },
      ],
    });
    expect(stdout).toContain(
      [
        'Left out (no place for them in Markdown or the CMS):',
        '       1  search and social fields (og_description): post p2 "new-seo"',
        '       1  search and social fields (meta_title): page p3 "team"',
      ].join('\n'),
    );
    expect(stdout).not.toContain('(meta_description)');
    expect(await read('content/articles/old-seo.md')).toContain('description: For search engines\n');
    expect(await read('content/pages/about-us.md')).toContain("description: 'Who we are, for search'\n");
  });

  it('makes a bookmark card a link with its title, then its description; no favicon, no thumbnail', async () => {
    const html =
      '<p>Read this:</p><figure class="kg-card kg-bookmark-card kg-card-hascaption"><a class="kg-bookmark-container" ' +
      'href="https://ghost.org/docs/"><div class="kg-bookmark-content"><div class="kg-bookmark-title">Ghost Docs</div>' +
      '<div class="kg-bookmark-description">Everything you need to know.</div><div class="kg-bookmark-metadata">' +
      '<img class="kg-bookmark-icon" src="https://ghost.org/favicon.ico" alt=""><span class="kg-bookmark-author">Ghost' +
      '</span><span class="kg-bookmark-publisher">Ghost Foundation</span></div></div>' +
      '<div class="kg-bookmark-thumbnail"><img src="https://ghost.org/thumb.png" alt=""></div></a>' +
      '<figcaption>Our docs</figcaption></figure>';
    const { read } = await importGhost({ posts: [post('p1', 'bookmark', { html })] });
    expect(bodyOf(await read('content/articles/bookmark.md'))).toBe(
      [
        'Read this:',
        '',
        '[**Ghost Docs**](https://ghost.org/docs/)',
        '',
        'Everything you need to know.',
        '',
        '_Our docs_',
        '',
      ].join('\n'),
    );
  });

  it('makes a toggle card its heading in bold then its content, a file card one link and its caption', async () => {
    const file = (title: string) =>
      '<div class="kg-card kg-file-card"><a class="kg-file-card-container" ' +
      'href="https://old.example/content/files/r.pdf" download><div class="kg-file-card-contents">' +
      `<div class="kg-file-card-title">${title}</div><div class="kg-file-card-caption">The 2023 report</div>` +
      '<div class="kg-file-card-metadata"><div class="kg-file-card-filename">r.pdf</div>' +
      '<div class="kg-file-card-filesize">12 KB</div></div></div><div class="kg-file-card-icon">' +
      '<svg viewBox="0 0 24 24"><title>download</title></svg></div></a></div>';
    const html =
      '<div class="kg-card kg-toggle-card" data-kg-toggle-state="close"><div class="kg-toggle-heading">' +
      '<h4 class="kg-toggle-heading-text"><span>What is a toggle?</span></h4><button class="kg-toggle-card-icon">' +
      '<svg viewBox="0 0 24 24"><path d="M23"></path></svg></button></div><div class="kg-toggle-content">' +
      '<p>The <em>answer</em>.</p></div></div>' +
      file('Annual report') +
      file('');
    const { read, stdout } = await importGhost({ posts: [post('p1', 'cards', { html })] });
    expect(bodyOf(await read('content/articles/cards.md'))).toBe(
      [
        '**What is a toggle?**',
        '',
        'The _answer_.',
        '',
        '[Annual report](https://old.example/content/files/r.pdf)',
        '',
        '_The 2023 report_',
        '',
        '[r.pdf](https://old.example/content/files/r.pdf)',
        '',
        '_The 2023 report_',
        '',
      ].join('\n'),
    );
    expect(stdout).not.toContain('svg');
    expect(stdout).not.toContain('Embeds kept');
  });

  it('makes a callout card a quote, its emoji heading its text', async () => {
    const html =
      '<p>Intro.</p><div class="kg-card kg-callout-card kg-callout-card-blue"><div class="kg-callout-emoji">💡</div>' +
      '<div class="kg-callout-text">Remember to <b>save</b>.<br>Every time.</div></div>' +
      '<div class="kg-card kg-callout-card kg-callout-card-grey"><div class="kg-callout-text">No emoji.</div></div>';
    const { read } = await importGhost({ posts: [post('p1', 'callouts', { html })] });
    expect(bodyOf(await read('content/articles/callouts.md'))).toBe(
      ['Intro.', '', '> 💡 Remember to **save**.\\', '> Every time.', '', '> No emoji.', ''].join('\n'),
    );
  });

  it('makes a product card its picture, name, rating in stars, description and button, not its icons', async () => {
    const star = (on: boolean) =>
      `<span class="kg-product-card-rating-star${on ? ' kg-product-card-rating-active' : ''}">` +
      '<svg viewBox="0 0 24 24"><path d="M12"/></svg></span>';
    const html =
      '<div class="kg-card kg-product-card"><div class="kg-product-card-container">' +
      '<img src="https://old.example/content/images/kettle.jpg" class="kg-product-card-image" loading="lazy">' +
      '<div class="kg-product-card-title-container"><h4 class="kg-product-card-title">Acme Kettle</h4></div>' +
      `<div class="kg-product-card-rating">${[true, true, true, false, false].map(star).join('')}</div>` +
      '<div class="kg-product-card-description"><p>Boils <em>fast</em>.</p></div>' +
      '<a href="https://shop.example/kettle" class="kg-product-card-button kg-product-card-btn-accent"><span>Buy it</span></a>' +
      '</div></div>';
    const { read, stdout } = await importGhost({ posts: [post('p1', 'review', { html })] });
    expect(bodyOf(await read('content/articles/review.md'))).toBe(
      [
        '![Acme Kettle](https://old.example/content/images/kettle.jpg)',
        '',
        '**Acme Kettle**',
        '',
        '★★★☆☆ (3/5)',
        '',
        'Boils _fast_.',
        '',
        '[Buy it](https://shop.example/kettle)',
        '',
      ].join('\n'),
    );
    expect(stdout).not.toContain('svg');
  });

  it("makes an NFT card its link, title, creator and description, without the marketplace's picture", async () => {
    const html =
      '<figure class="kg-card kg-embed-card kg-nft-card"><a href="https://opensea.io/assets/0x/1" ' +
      'class="kg-nft-card-container"><img src="https://i.seadn.io/nft.png" class="kg-nft-image" alt="">' +
      '<div class="kg-nft-metadata"><div class="kg-nft-header"><h4 class="kg-nft-title">Cool NFT #1</h4></div>' +
      '<div class="kg-nft-creator">Created by <span class="kg-nft-creator-name">artist</span>&bull; Ethereum</div>' +
      '<div class="kg-nft-description">A cool one.</div></div></a></figure><p>After.</p>';
    const { read } = await importGhost({ posts: [post('p1', 'token', { html })] });
    expect(bodyOf(await read('content/articles/token.md'))).toBe(
      [
        '[**Cool NFT #1**](https://opensea.io/assets/0x/1)',
        '',
        'Created by artist • Ethereum',
        '',
        'A cool one.',
        '',
        'After.',
        '',
      ].join('\n'),
    );
  });

  it('flattens <div>s nested by the thousand, and lists the post', async () => {
    const html = `<p>Pasted.</p>${'<div>'.repeat(3000)}<p>Still here.</p>`;
    const { read, stdout } = await importGhost({ posts: [post('p1', 'pasted', { html })] });
    expect(bodyOf(await read('content/articles/pasted.md'))).toBe('Pasted.\n\nStill here.\n');
    expect(stdout).toContain('wrappers nested more than 64 deep');
  });

  it('keeps the title and description of a bookmark or file card whose link is gone', async () => {
    const html =
      '<figure class="kg-card kg-bookmark-card"><div class="kg-bookmark-content"><div class="kg-bookmark-title">' +
      'Ghost Docs</div><div class="kg-bookmark-description">Everything you need.</div></div></figure>' +
      '<div class="kg-card kg-file-card"><div class="kg-file-card-title">Report</div>' +
      '<div class="kg-file-card-caption">For 2023</div></div>';
    const { read } = await importGhost({ posts: [post('p1', 'no-links', { html })] });
    expect(bodyOf(await read('content/articles/no-links.md'))).toBe(
      ['**Ghost Docs**', '', 'Everything you need.', '', 'Report', '', '_For 2023_', ''].join('\n'),
    );
  });
});
