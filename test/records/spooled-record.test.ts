import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DesiredRecord } from '../../src/records/build-record.js';
import { packedRecords, plainRecord, spoolRecord } from '../../src/records/spooled-record.js';
import { openBodySpool, type BodySpool } from '../../src/render/body-spool.js';
import type { SourceDocument } from '../../src/source/read-document.js';
import { packedDocuments, spoolDocument } from '../../src/source/spooled-document.js';

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

/**
 * Packed (see PackedList): what waits for the render to start or end is held as columns, and made
 * again, with everything it held, when read. Past the columns' first sizes (256 items, 16 KiB of
 * keys), with keys that are not ASCII.
 */
describe('packed documents and records', () => {
  const slugOf = (i: number) => (i % 3 === 0 ? `histoire-${i}-été-${'é'.repeat(40)}` : `story-${i}`);

  it('gives back each record as it was spooled, and keeps one that is not spooled as it is', () => {
    const records: DesiredRecord[] = [];
    for (let i = 0; i < 600; i++) {
      const slug = slugOf(i);
      const over: Partial<DesiredRecord> = {};
      if (i % 7 === 0) over.file = `content/articles/${slug}/index.md`;
      if (i % 11 === 0) over.formerSlugs = { slugs: [`old-${i}`], key: 'aliases', line: 4 };
      if (i % 13 === 0) over.siteId = { value: `id-${i}`, line: 5 };
      // Its key is not its resource and slug: not spooled.
      if (i === 300) over.key = 'article/other';
      records.push(spoolRecord(article(slug, over), spool));
    }
    const packed = packedRecords();
    expect(records.map((r) => packed.add(r))).toEqual(records.map((_, i) => i));
    expect(packed.size).toBe(600);
    const again = [...packed];
    for (const [i, record] of records.entries()) {
      const back = again[i]!;
      expect(packed.at(i).key).toBe(record.key);
      if (i === 300) {
        expect(back).toBe(record);
        continue;
      }
      expect(back).not.toBe(record);
      expect(plainRecord(back)).toEqual(plainRecord(record));
      expect(Object.keys(back).sort()).toEqual(Object.keys(record).sort());
    }
    expect(() => packed.at(600)).toThrow(RangeError);
    expect(() => packed.at(-1)).toThrow(RangeError);
  });

  it('gives back each document as it was scanned, and keeps one of another spool as it is', () => {
    const other = openBodySpool(dir);
    try {
      const docs: SourceDocument[] = [];
      for (let i = 0; i < 600; i++) docs.push(spoolDocument(scanned(i, slugOf(i)), i === 42 ? other : spool));
      // A slug with a lone surrogate (YAML's "\uD800"), which UTF-8 cannot carry: kept as it is.
      const lone = spoolDocument(scanned(1, 'caf\uD800'), spool);
      docs.push(lone);
      const packed = packedDocuments();
      for (const doc of docs) packed.add(doc);
      for (const [i, back] of [...packed].entries()) {
        const doc = docs[i]!;
        if (i === 42 || doc === lone) expect(back).toBe(doc);
        else expect(back).not.toBe(doc);
        for (const field of ['key', 'resource', 'slug', 'file', 'lang', 'hash', 'body', 'bodyLine'] as const)
          expect(back[field]).toBe(doc[field]);
        expect(back.frontMatter).toEqual(doc.frontMatter);
      }
      // Taken once, for the render: each made again in order, and none can be read after.
      expect([...packed.take()].map((d) => d.key)).toEqual(docs.map((d) => d.key));
      expect(() => packed.at(0)).toThrow(/taken/);
    } finally {
      other.close();
    }
  });
});

/** A document as the scan makes it, before it is spooled. */
function scanned(i: number, slug: string): SourceDocument {
  return {
    key: `article/${slug}`,
    resource: 'article',
    slug,
    file: i % 5 === 0 ? `content/articles/${slug}.fr.md` : `content/articles/${slug}.md`,
    ...(i % 5 === 0 ? { lang: 'fr' } : {}),
    bodyLine: 3,
    absPath: `/p/content/articles/${slug}.md`,
    hash: String(i).padStart(64, '0'),
    frontMatter: { title: `Title ${i}` },
    frontMatterLines: { title: 2 },
    body: `Body of ${slug}`,
  } as SourceDocument;
}
