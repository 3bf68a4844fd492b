import { describe, expect, it } from 'vitest';
import { MANAGED_FIELDS } from '../../src/config/schema.js';
import { resolveConfig } from '../../src/config/load-config.js';
import { knownKeys } from '../../src/records/front-matter.js';
import { RECORD_RESOURCES } from '../../src/resources.js';
import { FOLDER_TO_RESOURCE, fromApi, managedFields, resourceOrder } from '../../src/resources/derived.js';
import { RESOURCE_TABLE } from '../../src/resources/table.js';

describe('the resource table', () => {
  it('describes every record resource, each in its own folder, naming only resources it has', () => {
    expect(Object.keys(RESOURCE_TABLE).sort()).toEqual([...RECORD_RESOURCES].sort());
    expect(FOLDER_TO_RESOURCE).toEqual({
      categories: 'category',
      users: 'user',
      articles: 'article',
      pages: 'page',
      breaking: 'breaking',
    });
    for (const descriptor of Object.values(RESOURCE_TABLE))
      for (const relation of descriptor.relations) expect(RECORD_RESOURCES).toContain(relation.target);
  });

  it('declares the relations: category, author and authors of articles, parent of categories', () => {
    const relations = Object.fromEntries(
      RECORD_RESOURCES.map((r) => [r, RESOURCE_TABLE[r].relations.map((x) => ({ ...x }))]),
    );
    expect(relations).toEqual({
      category: [{ key: 'parent', target: 'category', field: 'parent_id', many: false }],
      user: [],
      article: [
        { key: 'category', target: 'category', field: 'category_id', many: false },
        { key: 'author', target: 'user', field: 'author_id', many: false },
        { key: 'authors', target: 'user', field: 'author_ids', many: true },
      ],
      page: [],
      breaking: [],
    });
  });

  it('gives the config its managed fields, front matter its keys, and deletes their default', () => {
    expect(MANAGED_FIELDS).toEqual({
      category: ['name', 'slug', 'description', 'parent_id'],
      user: ['name', 'slug', 'email', 'role', 'bio'],
      article: ['title', 'slug', 'created_at', 'status', 'category_id', 'author_id', 'author_ids', 'body'],
      page: ['title', 'slug', 'status', 'content'],
      breaking: ['title', 'slug', 'url', 'status'],
    });
    expect(knownKeys('article').sort()).toEqual(
      ['title', 'date', 'slug', 'status', 'draft', 'published', 'category', 'author', 'authors'].sort(),
    );
    expect(knownKeys('category').sort()).toEqual(['name', 'title', 'slug', 'description', 'parent'].sort());
    const config = resolveConfig({}, { projectDir: '/p', env: {} });
    expect(RECORD_RESOURCES.filter((r) => config.resources[r].allowDelete)).toEqual(
      RECORD_RESOURCES.filter((r) => RESOURCE_TABLE[r].deletable),
    );
    expect(config.resources.user.allowDelete).toBe(false);
    // A relation's field can be renamed for the CMS like any managed field.
    const renamed = resolveConfig(
      { resources: { article: { fields: { author_ids: 'writers' } } } },
      {
        projectDir: '/p',
        env: {},
      },
    );
    expect(renamed.resources.article.fields.author_ids).toBe('writers');
  });

  it('orders each resource after the resources it names, and refuses a loop between resources', () => {
    const order = resourceOrder(RESOURCE_TABLE);
    for (const resource of RECORD_RESOURCES)
      for (const { target } of RESOURCE_TABLE[resource].relations)
        if (target !== resource) expect(order.indexOf(target)).toBeLessThan(order.indexOf(resource));
    const looping = {
      ...RESOURCE_TABLE,
      user: {
        ...RESOURCE_TABLE.user,
        relations: [{ key: 'favourite', target: 'article', field: 'favourite_id', many: false }] as const,
      },
    };
    expect(() => resourceOrder(looping)).toThrow(/relations loop: .*user -> article -> user|article -> user/);
  });

  it('adds status, relation and HTML fields to the managed fields of a copy with them', () => {
    expect(
      managedFields({
        fields: ['name'],
        hasStatus: true,
        relations: [{ key: 'owner', target: 'user', field: 'owner_id', many: false }],
        htmlField: 'text',
      }),
    ).toEqual(['name', 'status', 'owner_id', 'text']);
  });
});

describe('fromApi (what pull writes)', () => {
  const slugs: Record<string, Record<number, string>> = {
    user: { 7: 'jane', 8: 'joe' },
    category: { 3: 'news' },
  };
  const slugOf = (resource: string, id: number) => slugs[resource]?.[id];

  it('turns relation ids into slugs under their front matter keys, and keeps the body HTML', () => {
    const warnings: string[] = [];
    const article = fromApi(
      'article',
      {
        id: 1,
        title: 'Hello',
        created_at: '2026-01-02T03:04:05.000Z',
        status: '1',
        category_id: 3,
        author_id: 7,
        author_ids: [8, '7', 99],
        body: '<p>Hi</p>',
      },
      { fields: {}, slugOf, warn: (m) => warnings.push(m) },
    );
    expect(article).toEqual({
      frontMatter: {
        title: 'Hello',
        date: new Date('2026-01-02T03:04:05.000Z'),
        status: 1,
        category: 'news',
        author: 'jane',
        authors: ['joe', 'jane'],
      },
      html: '<p>Hi</p>',
    });
    expect(warnings).toEqual(['user 99 (its `authors`) has no slug in the CMS; left out']);
  });

  it("reads the CMS's own field names, and a category's parent", () => {
    const category = fromApi(
      'category',
      { id: 4, label: 'Sport', up: 3 },
      { fields: { name: 'label', parent_id: 'up' }, slugOf },
    );
    expect(category).toEqual({ frontMatter: { name: 'Sport', description: undefined, parent: 'news' } });
  });

  it('writes a placeholder for a missing required field, and says so', () => {
    const warnings: string[] = [];
    const page = fromApi(
      'page',
      { id: 2, content: '<p>x</p>' },
      { fields: {}, slugOf, warn: (m) => warnings.push(m) },
    );
    expect(page).toEqual({ frontMatter: { title: '(untitled)', status: undefined }, html: '<p>x</p>' });
    expect(warnings).toEqual([
      'no title in the CMS; written as "(untitled)" (the CMS gets that on the next apply)',
    ]);
  });
});
