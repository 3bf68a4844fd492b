import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredRecord } from '../../src/records/build-record.js';
import { plainRecord, spoolRecord } from '../../src/records/spooled-record.js';
import { openBodySpool, type BodySpool } from '../../src/render/body-spool.js';
import type { SourceDocument } from '../../src/source/read-document.js';
import { spoolDocument } from '../../src/source/spooled-document.js';

/**
 * What waits in the spool comes back as it went in. Memory keeps a record's key, and where the
 * rest is: its resource and slug are read back from its key, its file is the one the key names
 * unless it is another, where its HTML lies is kept with its fields.
 */

let dir: string;
let spool: BodySpool;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-spooled-'));
  spool = openBodySpool(dir);
});
afterEach(async () => {
  spool.close();
  await rm(dir, { recursive: true, force: true });
});

function article(slug: string, over: Partial<DesiredRecord> = {}): DesiredRecord {
  return {
    // Joined as read-document joins it: a string made of two.
    key: ['article', slug].join('/'),
    resource: 'article',
    slug,
    file: `content/articles/${slug}.md`,
    values: { slug, title: `Title of ${slug}` },
    input: {
      hash: 'i'.repeat(64),
      fileSha: 'f'.repeat(64),
      media: [],
      refs: { category: { slugs: ['news'], line: 3 } },
    },
    ...over,
  } as DesiredRecord;
}

describe('a spooled record', () => {
  it('gives back its key, slug, file, fields, relations and HTML, with and without a body', () => {
    const template = spool.hold('<p>Grüße from story-é</p><dynamic-block data-id="0"></dynamic-block>');
    const withBody = article('story-é', {
      html: {
        field: 'body',
        template: template.toString(),
        media: [{ kind: 'url', url: 'https://example.org/a.png', identity: 'url:https://example.org/a.png' }],
        text: [{ alt: 'An image', line: 6, column: 1 }],
        digest: 'd'.repeat(64),
      },
      formerSlugs: { slugs: ['old-story'], key: 'aliases', line: 4 },
      siteId: { value: 'id-1', line: 5 },
    });
    const without = article('a-category-page');
    const spooled = [spoolRecord(withBody, spool, template), spoolRecord(without, spool)];
    // More values than the spool keeps read, so each is read from disk again.
    for (let i = 0; i < 100; i++) spool.place({ i });
    for (const [i, original] of [withBody, without].entries()) {
      const record = spooled[i]!;
      expect(record).not.toBe(original);
      const plain = plainRecord(record);
      expect(plain.key).toBe(original.key);
      expect(plain.slug).toBe(original.slug);
      expect(plain.resource).toBe('article');
      expect(plain.file).toBe(original.file);
      expect(plain.values).toEqual(original.values);
      expect(plain.refs?.map((r) => [r.relation.key, r.slugs])).toEqual([['category', ['news']]]);
      expect(plain.formerSlugs).toBe(original.formerSlugs);
      expect(plain.siteId).toBe(original.siteId);
      expect(plain.input).toEqual(original.input);
      if (!original.html) expect(plain.html).toBeUndefined();
      else {
        const { template: text, ...rest } = plain.html!;
        expect(text).toBe(original.html.template);
        const { template: _, ...fields } = original.html;
        // Where its HTML lies is not among them.
        expect(rest).toStrictEqual(fields);
      }
    }
    // Nothing but the key is an own field of the object held per record: its resource and slug
    // are read from the key, and its file is the one the key names.
    expect(Object.keys(spooled[1]!)).toEqual(['key']);
  });

  it('keeps a file of its own only when it is not the one its key names', () => {
    const files = [
      // Before any file named by default: nothing to compare with yet.
      'content/articles/bundle/index.md',
      'content/articles/plain.md',
      'content/articles/2024/plain-too.md',
      'content/articles/again.md',
      // Ends as the default does, under another folder.
      'elsewhere/content/articles/moved.md',
      'content/articles/translated.fr.md',
    ];
    const slugs = ['bundle', 'plain', 'plain-too', 'again', 'moved', 'translated'];
    const spooled = slugs.map((slug, i) => spoolRecord(article(slug, { file: files[i]! }), spool));
    expect(spooled.map((r) => r.file)).toEqual(files);
    expect(spooled.map((r) => r.resource)).toEqual(slugs.map(() => 'article'));
    expect(spooled.map((r) => Object.keys(r).includes('ownFile'))).toEqual([
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
  });

  it('is not made for a record whose key is not its resource and slug', () => {
    const odd = article('story', { key: 'article/other' });
    expect(spoolRecord(odd, spool)).toBe(odd);
  });
});

describe('a spooled document', () => {
  const doc = (key: string, slug: string): SourceDocument =>
    ({
      key,
      resource: 'article',
      slug,
      file: `content/articles/${slug}.fr.md`,
      lang: 'fr',
      bodyLine: 4,
      absPath: `/p/content/articles/${slug}.fr.md`,
      hash: 'h'.repeat(64),
      frontMatter: { title: 'Bonjour' },
      frontMatterLines: { title: 2 },
      body: 'Le conseil',
    }) as SourceDocument;

  it('gives back what it was scanned with, its slug read from its key', () => {
    const original = doc(['article', 'story-fr'].join('/'), 'story-fr');
    const spooled = spoolDocument(original, spool);
    expect(spooled).not.toBe(original);
    for (const field of [
      'key',
      'resource',
      'slug',
      'file',
      'lang',
      'bodyLine',
      'absPath',
      'hash',
      'body',
    ] as const)
      expect(spooled[field]).toBe(original[field]);
    expect(spooled.frontMatter).toEqual(original.frontMatter);
    expect(spooled.frontMatterLines).toEqual(original.frontMatterLines);
  });

  it('gives back its file, held only when its key does not name it, and its resource', () => {
    const named = { ...doc('page/about', 'about'), resource: 'page', file: 'content/pages/about.md' };
    const other = { ...doc('page/team', 'team'), resource: 'page', file: 'content/pages/people/team.md' };
    const [a, b] = [
      spoolDocument(named as SourceDocument, spool),
      spoolDocument(other as SourceDocument, spool),
    ];
    expect([a!.file, b!.file]).toEqual(['content/pages/about.md', 'content/pages/people/team.md']);
    expect([a!.resource, b!.resource]).toEqual(['page', 'page']);
    expect(Object.keys(a!)).not.toContain('ownFile');
    expect(Object.keys(b!)).toContain('ownFile');
  });

  it('is not made for a document whose key is not its resource and slug', () => {
    const odd = doc('article/other-fr', 'story-fr');
    expect(spoolDocument(odd, spool)).toBe(odd);
  });
});
