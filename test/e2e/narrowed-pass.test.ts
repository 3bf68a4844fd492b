import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, SECRET_TOKEN, type Project } from './harness.js';

/**
 * A narrowed pass (a watch's saves of documents already synced, or `--only`) costs what it selects:
 * its plan names no record outside the selection, and a watch's pass reads from the CMS only the
 * saved files' records, each by its id, without listing content/ or the CMS.
 */
const story = (title: string, text: string) => `---\ntitle: ${title}\n---\n\n${text}\n`;

let project: Project;
beforeAll(async () => {
  project = await createProject({
    'content/articles/a.md': story('A', 'First.'),
    'content/articles/b.md': story('B', 'Second.'),
    'content/articles/c.md': story('C', 'Third.'),
    'content/articles/trip/index.md': story('Trip', 'A bundle.'),
    'content/articles/trip/notes.md': story('Notes', 'A resource of the bundle.'),
  });
  expect((await project.applyInProcess()).exitCode).toBe(0);
}, 60_000);
afterAll(async () => {
  expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project.close();
});

type Changes = Array<{ action: string; key: string; kind?: string }>;

/** One pass of syncOnce on an open session, as watch runs it: `files` given for a narrowed pass. */
async function pass(files: string[] | undefined, only = files, confirm?: () => Promise<boolean>) {
  const { openSession } = await import('../../dist/sync/session.js');
  const { syncOnce } = await import('../../dist/sync/run-sync.js');
  const env = {
    CMS_BASE_URL: project.cms.url,
    CMS_API_TOKEN: SECRET_TOKEN,
    CMS_MEDIA_BASE_URL: 'http://127.0.0.1:9/',
  };
  const session = await openSession('apply', { projectDir: project.dir, env, command: 'watch' });
  try {
    const flags = { prune: false, ...(only ? { only } : {}), ...(confirm ? { confirm } : {}) };
    const report = await syncOnce(session, flags, () => {}, { files });
    const changes = (report.plan?.changes ?? []) as Changes;
    return { report, changes: changes.map((c) => `${c.action} ${c.key}${c.kind ? ` ${c.kind}` : ''}`) };
  } finally {
    await session.close();
  }
}

describe('a narrowed pass', () => {
  it('reads a saved file and its record only: the CMS is not listed', async () => {
    await project.write('content/articles/a.md', story('A', 'First, edited.'));
    const { report, changes } = await pass(['articles/a.md']);
    expect(changes).toEqual(['update article/a']);
    expect(report.stats.byAction).toEqual({ 'article.get': 1, 'article.edit': 1 });
    expect(report.source).toMatchObject({ documents: 1, rendered: 1 });
    const [a] = (await project.records('article')).filter((r) => r.slug === 'a');
    expect(a!.body).toContain('First, edited.');
  });

  it('finds a record the saved file names that only the CMS has, as a whole pass does', async () => {
    // A category made in the CMS's dashboard, not in content/: the saved file's relation finds it by slug.
    const desk = await project.api({
      resource: 'category',
      action: 'add',
      data: { name: 'Desk', slug: 'desk' },
    });
    await project.write('content/articles/a.md', '---\ntitle: A\ncategory: desk\n---\n\nFirst, filed.\n');
    const { report, changes } = await pass(['articles/a.md']);
    expect(report.problems).toEqual([]);
    expect(changes).toEqual(['update article/a']);
    const [a] = (await project.records('article')).filter((r) => r.slug === 'a');
    expect(a!.category_id).toBe(desk.id);
  });

  it('still finds the CMS’s own change to that record, and its removal there', async () => {
    const [b] = (await project.records('article')).filter((r) => r.slug === 'b');
    await project.api({ resource: 'article', action: 'edit', id: b!.id, data: { title: 'B by hand' } });
    await project.write('content/articles/b.md', story('B', 'Second, edited.'));
    expect((await pass(['articles/b.md'])).changes).toEqual(['drift article/b conflict']);

    const [c] = (await project.records('article')).filter((r) => r.slug === 'c');
    await project.api({ resource: 'article', action: 'delete', id: c!.id });
    await project.write('content/articles/c.md', story('C', 'Third, edited.'));
    expect((await pass(['articles/c.md'])).changes).toEqual(['drift article/c deleted-in-cms']);
  });

  it('plans a saved bundle resource as a new record, a plan a watch hands to a whole pass', async () => {
    // Only the whole listing tells that notes.md belongs to the bundle: the narrowed pass cannot,
    // and its plan creates, which a watch never takes from a narrowed pass (see run-pass.ts).
    await project.write('content/articles/trip/notes.md', story('Notes', 'Edited.'));
    const narrowed = await pass(['articles/trip/notes.md'], undefined, async () => false);
    expect(narrowed.changes).toEqual(['create article/notes']);
    expect(narrowed.report.stats.writes).toBe(0);
    // The same selection, listed: a resource of the bundle, no record at all.
    const listed = await pass(undefined, ['articles/trip/notes.md']);
    expect(listed.changes).toEqual([]);
    // The bundle's index alone is the bundle's record, as in the whole listing.
    await project.write('content/articles/trip/index.md', story('Trip', 'A bundle, edited.'));
    expect((await pass(['articles/trip/index.md'])).changes).toEqual(['update article/trip']);
  }, 30_000);

  it('under --only names no record outside the selection, and deletes only a selected one', async () => {
    await project.write('content/articles/b.md', story('B', 'Second.'));
    const plan = await project.run(['plan', '--only', 'articles/b.md']);
    expect(plan.stdout).toContain('article/b');
    expect(plan.stdout).not.toContain('article/a');
    expect(plan.stdout).not.toContain('kept');

    await project.remove('content/articles/a.md');
    const other = await project.run(['apply', '--prune', '--only', 'articles/b.md', '--overwrite-drift']);
    expect(other.code, other.stderr).toBe(0);
    expect((await project.records('article')).map((r) => r.slug)).toContain('a');
    const selected = await project.run(['apply', '--prune', '--only', 'articles/a.md']);
    expect(selected.code, selected.stderr).toBe(0);
    expect(selected.stdout).toContain('1 deleted');
    expect((await project.records('article')).map((r) => r.slug)).not.toContain('a');
  }, 60_000);
});
