import { describe, expect, it } from 'vitest';
import type { ResolvedResource } from '../../src/config/schema.js';
import { pullFields } from '../../src/migrate/pull-fields.js';

const slugs = new Map([
  ['category', new Map([[3, 'news']])],
  ['user', new Map([[7, 'jane']])],
] as const);
const resource = (over: Partial<ResolvedResource>): ResolvedResource =>
  ({ fields: {}, passThrough: false, ...over }) as ResolvedResource;

describe('pullFields (the resource table read back into front matter)', () => {
  it("maps the CMS's field names, passes through the rest, and never the CMS's own stamps", () => {
    const pulled = pullFields(
      'article',
      {
        id: 1,
        headline: 'Hello',
        created_at: '2026-01-02T03:04:05.000Z',
        updated_at: '2026-01-03T00:00:00.000Z',
        status: 1,
        category_id: 3,
        author_id: 7,
        body: '<p>Hi</p>',
        subtitle: 'More',
        date: 'taken for a typo',
      },
      resource({ fields: { title: 'headline' }, passThrough: true }),
      slugs,
    );
    expect(pulled).toEqual({
      frontMatter: {
        title: 'Hello',
        date: new Date('2026-01-02T03:04:05.000Z'),
        status: 1,
        category: 'news',
        author: 'jane',
        subtitle: 'More',
      },
      html: '<p>Hi</p>',
      notes: ['field `date` would be read as front matter `date`; left out'],
      unmapped: [],
    });
    expect(Object.keys(pulled.frontMatter)).toEqual([
      'title',
      'date',
      'status',
      'category',
      'author',
      'subtitle',
    ]);
  });

  it("never writes the CMS's id over front matter `id` (the old site's), not even when passThrough lists it", () => {
    const pulled = pullFields(
      'category',
      { id: 9, name: 'News', updated_at: '2026-01-03T00:00:00.000Z', color: 'red' },
      resource({ passThrough: ['id', 'color'] }),
      slugs,
    );
    expect(pulled.frontMatter).toEqual({ name: 'News', color: 'red' });
    expect(pulled.notes).toEqual([
      'field `id` is set by the CMS itself: left out, though passThrough lists it',
    ]);
  });

  it('leaves out the configured change marker too, which the CMS sets as it does its stamps', () => {
    const pulled = pullFields(
      'category',
      { id: 9, name: 'News', modified: '2026-01-03T00:00:00.000Z', color: 'red' },
      resource({ passThrough: true }),
      slugs,
      'modified',
    );
    expect(pulled.frontMatter).toEqual({ name: 'News', color: 'red' });
    expect(pulled.unmapped).toEqual([]);
  });

  it('lists fields it leaves out, and writes a placeholder for a missing title with a note', () => {
    const pulled = pullFields(
      'page',
      { id: 2, content: '<p>x</p>', views: 5, updated_at: 'x' },
      resource({}),
      slugs,
    );
    expect(pulled.frontMatter).toEqual({ title: '(untitled)' });
    expect(pulled.unmapped).toEqual(['views']);
    expect(pulled.notes).toEqual([
      'no title in the CMS; written as "(untitled)" (the CMS gets that on the next apply)',
    ]);
  });
});
