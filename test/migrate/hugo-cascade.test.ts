import { afterEach, describe, expect, it } from 'vitest';
import { cascadeFor, cascadeOf, hugoPagePath } from '../../src/migrate/hugo-cascade.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe("Hugo's cascade", () => {
  it('a closer section over the site, each entry limited by its target (path, kind, lang, environment)', () => {
    const site = cascadeOf({ author: 'ann', params: { banner: 'site.png', tone: 'calm' } });
    const section = cascadeOf([
      { params: { banner: 'posts.png' }, _target: { path: '/posts/2024/**' } },
      { draft: true, target: { lang: 'es' } },
      { layout: 'list', _target: { kind: 'section' } },
      { toc: true, _target: { environment: 'development' } },
    ]);
    expect(cascadeFor([site, section], '/posts/2024/trip', 'en')).toEqual({
      author: 'ann',
      params: { banner: 'posts.png', tone: 'calm' },
    });
    expect(cascadeFor([site, section], '/posts/2023/old', 'es')).toEqual({
      author: 'ann',
      params: { banner: 'site.png', tone: 'calm' },
      draft: true,
    });
    expect(cascadeOf(undefined)).toEqual([]);
    expect(hugoPagePath('posts/trip/index.es.md', 'es')).toBe('/posts/trip');
    expect(hugoPagePath('posts/hello.es.md', 'es')).toBe('/posts/hello');
    expect(hugoPagePath('about.md', undefined)).toBe('/about');
  });

  it('on import: values pass down to the pages below, which keep their own; hidden sections stay out', async () => {
    project = await projectWithSite('hugo');
    await project.site('c', {
      'hugo.toml': [
        'baseURL = "https://c.example/"',
        'defaultContentLanguage = "en"',
        '[languages.en]',
        '[languages.es]',
        '[cascade]',
        'author = "ann"',
      ].join('\n'),
      'data/authors/ann.yaml': 'name: Ann\n',
      'data/authors/ben.yaml': 'name: Ben\n',
      'content/posts/_index.md': '---\ntitle: Posts\ncascade:\n  categories: [news]\n  banner: b.png\n---\n',
      'content/posts/_index.es.md':
        '+++\ntitle = "Entradas"\n[[cascade]]\ndraft = true\n[cascade._target]\npath = "/posts/**"\n+++\n',
      'content/posts/a.md': '---\ntitle: A\ndate: 2024-01-01\n---\nA.\n',
      'content/posts/b.md': '---\ntitle: B\ndate: 2024-01-02\nauthor: ben\ncategories: [sport]\n---\nB.\n',
      'content/posts/a.es.md': '---\ntitle: A es\ndate: 2024-01-01\n---\nA.\n',
      'content/docs/_index.md': '---\ntitle: Docs\ncascade:\n  _build:\n    render: never\n---\n',
      'content/docs/guide.md': '---\ntitle: Guide\n---\nInternal.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'c']);
    expect(run.code).toBe(0);
    const a = await project.read('content/articles/a.md');
    expect(a).toContain('category: news\n');
    expect(a).toContain('author: ann\n');
    const b = await project.read('content/articles/b.md');
    expect(b).toContain('category: sport\n');
    expect(b).toContain('author: ben\n');
    expect(await project.read('content/articles/a-es.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/a.md')).not.toContain('draft');
    expect(await project.files()).not.toContain('content/pages/guide.md');
    expect(run.stdout).not.toContain('`banner`');
  });
});
