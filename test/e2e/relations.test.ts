import { afterEach, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

/**
 * Two authors, a category under a parent, and an article naming all of them. The names sort the
 * wrong way round on purpose (`aa-news` under `zz-world`), and the local CMS refuses an id that
 * names nothing, so a write sent before what it names would fail.
 */
function newsroom(): Record<string, string> {
  return {
    'content/users/jane.md': '---\nname: Jane Doe\n---\n',
    'content/users/joe.md': '---\nname: Joe Bloggs\n---\n',
    'content/categories/zz-world.md': '---\nname: World\n---\n',
    'content/categories/aa-news.md': '---\nname: News\nparent: zz-world\n---\n',
    'content/articles/aa-post.md': [
      '---',
      'title: A post',
      'category: aa-news',
      'author: jane',
      'authors: [joe, jane]',
      '---',
      '',
      'Text.',
      '',
    ].join('\n'),
  };
}

let project: Project | undefined;
afterEach(async () => {
  if (project) expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project?.close();
  project = undefined;
});

describe('relations, end to end against the local CMS', () => {
  it('sends author, authors and a category parent as ids, in order, and a rerun writes nothing', async () => {
    project = await createProject(newsroom());
    const first = await project.run(['apply']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Applied: 5 created, 0 updated, 0 deleted');

    const id = (records: Array<Record<string, any>>, slug: string) =>
      records.find((r) => r.slug === slug)!.id;
    const users = await project.records('user');
    const categories = await project.records('category');
    const [article] = await project.records('article');
    expect(categories.find((c) => c.slug === 'aa-news')!.parent_id).toBe(id(categories, 'zz-world'));
    expect(article).toMatchObject({
      category_id: id(categories, 'aa-news'),
      author_id: id(users, 'jane'),
      author_ids: [id(users, 'joe'), id(users, 'jane')],
    });
    // Parent before child and users before the article: each write found what it names.
    const order = project.cms.stats().writeLog.map((w) => `${w.resource}.${w.action}`);
    expect(order.indexOf('article.add')).toBeGreaterThan(order.lastIndexOf('user.add'));

    project.cms.resetStats();
    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to upload, 5 unchanged.');
    expect(project.cms.stats().writes).toBe(0);

    // A changed relation is one edit of that field, by id.
    await project.write(
      'content/articles/aa-post.md',
      '---\ntitle: A post\ncategory: aa-news\nauthor: joe\nauthors: [joe, jane]\n---\n\nText.\n',
    );
    project.cms.resetStats();
    expect((await project.run(['apply'])).code).toBe(0);
    expect(project.cms.stats().writes).toBe(1);
    expect((await project.records('article'))[0]!.author_id).toBe(id(users, 'joe'));
  });

  it('stops an unknown slug at its key with the slugs it may have meant, and writes the rest', async () => {
    project = await createProject({
      ...newsroom(),
      'content/articles/typo.md': '---\ntitle: Typo\nauthor: jnae\n---\n\nText.\n',
    });
    const plan = await project.run(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'content/articles/typo.md:3:1: user `jnae` does not exist in content/users/ or in the CMS: did you mean ' +
        '`jane`? Known user slugs: `jane`, `joe`. Fix `author:` or add content/users/jnae.md',
    );
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(1);
    expect((await project.records('article')).map((a) => a.slug)).toEqual(['aa-post']);
  });

  it('refuses a loop of parents at each `parent` in it', async () => {
    project = await createProject({
      'content/categories/a.md': '---\nname: A\nparent: b\n---\n',
      'content/categories/b.md': '---\nname: B\nparent: a\n---\n',
      'content/categories/c.md': '---\nname: C\n---\n',
    });
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(1);
    const loop = 'makes a loop (category a → b → a): a category cannot be its own ancestor';
    expect(apply.stderr).toContain(`content/categories/a.md:3:1: \`parent\` ${loop}`);
    expect(apply.stderr).toContain(`content/categories/b.md:3:1: \`parent\` ${loop}`);
    expect((await project.records('category')).map((c) => c.slug)).toEqual(['c']);
  });

  it('never sends a create whose user failed, and sends it once the user is written', async () => {
    project = await createProject({
      // The local CMS refuses a user field it does not know: this user's create fails.
      'sync.config.ts': "export default { resources: { user: { passThrough: ['nickname'] } } };\n",
      'content/users/jane.md': '---\nname: Jane Doe\nnickname: JD\n---\n',
      'content/articles/post.md': '---\ntitle: A post\nauthor: jane\n---\n\nText.\n',
    });
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('not written: an image or a record it names failed');
    expect(project.cms.stats().byAction['article.add']).toBeUndefined();
    expect(await project.read('.cms-sync/journal.jsonl').catch(() => '')).not.toContain('article/post');

    await project.write('content/users/jane.md', '---\nname: Jane Doe\n---\n');
    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    const [user] = await project.records('user');
    expect((await project.records('article'))[0]!.author_id).toBe(user!.id);
  });

  it('deletes a child category before its parent with --prune', async () => {
    project = await createProject({
      ...newsroom(),
      'content/categories/aa-sub.md': '---\nname: Sub\nparent: aa-news\n---\n',
    });
    // In this process: the pruning run after it is what is checked.
    expect((await project.applyInProcess()).exitCode).toBe(0);
    await project.write('content/articles/aa-post.md', '---\ntitle: A post\n---\n\nText.\n');
    for (const file of ['aa-news', 'aa-sub', 'zz-world'])
      await project.remove(`content/categories/${file}.md`);
    const prune = await project.run(['apply', '--prune']);
    expect(prune.stderr).toBe('');
    expect(prune.code).toBe(0);
    expect(await project.records('category')).toEqual([]);
  });
});
