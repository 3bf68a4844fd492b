import { copyFile, cp, mkdtemp, readFile, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, png, SECRET_TOKEN, type Project } from './harness.js';

/**
 * After a clean apply, the next plan or apply passes over the documents the apply left as they
 * are (see src/state/clean-run.ts). That shortcut must never change what a run plans or does: each
 * case below makes one change, then runs the real CLI (which may take the shortcut) and compares
 * its plan with the plan of a whole pass over the very same project, state and CMS. The whole pass
 * is a plan in a twin of the project (a copy of its files, state and caches, without the mark,
 * against the same CMS): nothing in the twin can vouch for a file, so it reads everything.
 *
 * One project goes through the cases in order (each leaves it at a clean mark, files and CMS
 * agreeing). A file's stat is trusted only once it is 2 s old (RACY_MS), so the set-up waits once
 * before the apply whose hash cache the cases rely on.
 */
const config = (size = 'medium') => `
export default {
  media: { defaultSize: '${size}' },
  statusMap: { draft: 0, published: 1 },
  target: {
    // FAIL_EDITS=1: every edit of an article is sent with an empty title, which the CMS refuses (400).
    client: (options, createDefault) => {
      const client = createDefault(options);
      if (!process.env.FAIL_EDITS) return client;
      const edit = client.edit.bind(client);
      client.edit = (resource, id, data, o) =>
        edit(resource, id, resource === 'article' ? { ...data, title: '' } : data, o);
      return client;
    },
  },
};
`;

const article = (title: string, text: string, front = '') => `---\ntitle: ${title}\n${front}---\n\n${text}\n`;

const FILES: Record<string, string | Buffer> = {
  'sync.config.ts': config(),
  'content/categories/world.md': '---\nname: World\n---\n',
  'content/categories/desk.md': '---\nname: Desk\nparent: world\n---\n',
  'content/users/ann.md': '---\nname: Ann\n---\n',
  'content/articles/a.md': article('A', 'Alpha.', 'category: desk\nauthor: ann\n'),
  'content/articles/b.md': article('B', 'Bravo.\n\n![A picture](../images/pic.png)'),
  'content/articles/c.md': article('C', 'Charlie.\n\n![A picture](/images/pic.png)'),
  'content/articles/d.md': article('D', 'Delta.'),
  // Names a category and a user that only the CMS has (made there before the first apply).
  'content/articles/e.md': article('E', 'Echo.', 'category: wire\nauthor: bob\n'),
  'content/articles/f.md': article('F', 'Foxtrot, a file to be renamed.'),
  'content/articles/g.md': article('G', 'Golf, a file to be removed.'),
  'content/articles/h.md': article('H', 'Hotel, edited in the CMS by hand.'),
  'content/articles/k.md': article('K', 'Kilo, deleted in the CMS.'),
  'content/articles/m.md': article('M', 'Mike, given a slug.'),
  'content/articles/t.md': article('T', 'Tango, touched.'),
  'content/articles/bad.md': article('Bad', 'Its YAML breaks later.'),
  'content/pages/about.md': '---\ntitle: About\nstatus: 1\n---\n\nAbout us.\n',
  'content/images/pic.png': png(1),
  'content/images/unused.png': png(9),
};
/** Documents in content/ now: the cases add and remove some. */
let documents = Object.keys(FILES).filter((f) => f.endsWith('.md')).length;

interface Change {
  action: string;
  key: string;
  file: string;
  id?: number;
  movedFrom?: string;
  kind?: string;
  reason?: string;
  fields?: string[];
}
interface PlanJson {
  counts: Record<string, number>;
  byResource: Record<string, Record<string, number>>;
  abort: string | null;
  deletesHeld: string | null;
  untouched: number;
  uploads: Array<{ identity: string; source: string | null; usedBy: string[] }>;
  mediaEdits: unknown[];
  changes: Change[];
  problems: Array<{ file: string; severity: string; text: string }>;
}
interface RunJson {
  mode: 'plan' | 'apply';
  source: { documents: number; rendered: number; hashed: number; untouched?: number };
  plan: PlanJson;
  result?: { created: number; updated: number; deleted: number; failures: unknown[] };
  stats: { writes: number; byAction: Record<string, number> };
}

let project: Project;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Past RACY_MS (2 s): a file's stat, or an image's, is trusted from then on. */
const settle = () => sleep(2100);
/** A file's bytes and stamp (size, times, inode), to tell that a run left it alone. */
const stampOf = async (file: string) => {
  const info = await stat(path.join(project.dir, file)).catch(() => undefined);
  const bytes = await readFile(path.join(project.dir, file), 'utf8').catch(() => undefined);
  return info && { bytes, stamp: [info.size, info.mtimeMs, info.ctimeMs, info.ino] };
};
const markFile = () => path.join(project.dir, '.cms-sync', 'clean-run.json');
const hasMark = () =>
  stat(markFile()).then(
    () => true,
    () => false,
  );

/** The CLI with --json; its plan, what it read, and what the CMS was asked. */
async function cli(args: string[], env: Record<string, string> = {}) {
  project.cms.resetStats();
  const run = await project.run([...args, '--json'], { env });
  let json: RunJson;
  try {
    json = JSON.parse(run.stdout) as RunJson;
  } catch {
    throw new Error(`no JSON from ${args.join(' ')} (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { code: run.code, stderr: run.stderr, json, cms: project.cms.stats() };
}

/**
 * The plan a whole pass makes now: in a twin of the project (its files, state, hash cache and
 * listing cache, copied; no mark), against the same CMS. A plan: the CMS is only read.
 */
async function wholePass(options: { prune?: boolean } = {}) {
  const twin = await mkdtemp(path.join(tmpdir(), 'cms-sync-e2e-twin-'));
  try {
    await cp(project.dir, twin, {
      recursive: true,
      filter: (source) => path.relative(project.dir, source) !== 'cms-data',
    });
    await rm(path.join(twin, '.cms-sync', 'clean-run.json'), { force: true });
    const { plan } = await import('../../dist/index.js');
    const result = await plan({
      projectDir: twin,
      ...options,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CMS_BASE_URL: project.cms.url,
        CMS_API_TOKEN: SECRET_TOKEN,
        CMS_MEDIA_BASE_URL: 'http://127.0.0.1:9/',
        CMS_SYNC_PROGRESS_LOG_MS: '3600000',
      },
    });
    const json = { source: result.source, plan: result.plan as unknown as PlanJson };
    // The twin passed nothing over.
    expect((json.source as RunJson['source']).untouched).toBeUndefined();
    expect(json.plan.untouched).toBe(0);
    return { code: result.exitCode, ...json };
  } finally {
    await rm(twin, { recursive: true, force: true });
  }
}

/** What a plan decides, less the records it found unchanged (a shortcut does not list those). */
function decided(plan: PlanJson) {
  return {
    counts: plan.counts,
    byResource: plan.byResource,
    abort: plan.abort,
    deletesHeld: plan.deletesHeld,
    uploads: plan.uploads,
    mediaEdits: plan.mediaEdits,
    changes: plan.changes.filter((c) => c.action !== 'unchanged'),
    problems: plan.problems.map((p) => p.text).sort(),
  };
}

/** The run's plan is the whole pass's, record for record; a plan's exit code is the same too. */
function expectSamePlan(run: Awaited<ReturnType<typeof cli>>, whole: Awaited<ReturnType<typeof wholePass>>) {
  expect(decided(run.json.plan)).toEqual(decided(whole.plan));
  expect(run.json.source.documents).toBe(whole.source.documents);
  if (run.json.mode === 'plan') expect(run.code).toBe(whole.code);
}

const changesOf = (plan: PlanJson) =>
  plan.changes
    .filter((c) => c.action !== 'unchanged')
    .map(
      (c) => `${c.action} ${c.key}${c.kind ? ` ${c.kind}` : ''}${c.movedFrom ? ` from ${c.movedFrom}` : ''}`,
    )
    .sort();
const record = async (resource: string, slug: string) =>
  (await project.records(resource)).find((r) => r.slug === slug);

/** Edits a record in the CMS, as a person would in its dashboard. */
async function editByHand(resource: string, slug: string, data: Record<string, unknown>): Promise<void> {
  await project.api({ resource, action: 'edit', id: (await record(resource, slug))!.id, data });
}

/** A run of the CLI, and the plan a whole pass makes now, which the run's must be (see expectSamePlan). */
async function likeWholePass(args: string[], options: { prune?: boolean } = {}) {
  const whole = await wholePass(options);
  const run = await cli(args);
  expectSamePlan(run, whole);
  return { run, whole };
}

/** An apply in this process, not under test: the project ends at a clean mark. */
async function cleanApply(options: { prune?: boolean } = {}) {
  const result = await project.applyInProcess(options);
  expect(result.result?.failures ?? []).toEqual([]);
  expect(await hasMark()).toBe(true);
  return result;
}

/** Runs `body`, then brings files and CMS back to agreeing at a clean mark, for the cases that follow. */
async function thenRepair(body: () => Promise<void>, repair: () => Promise<void>) {
  try {
    await body();
  } finally {
    await repair();
    expect((await project.applyInProcess({ overwriteDrift: true })).exitCode).toBe(0);
    await cleanApply();
  }
}

beforeAll(async () => {
  project = await createProject(FILES);
  await project.api({ resource: 'category', action: 'add', data: { name: 'Wire', slug: 'wire' } });
  await project.api({ resource: 'user', action: 'add', data: { name: 'Bob', slug: 'bob' } });
  const first = await project.applyInProcess();
  expect(first.problems).toEqual([]);
  expect(first.exitCode).toBe(0);
  await settle();
  // Reads every file (none was old enough for its stat to be kept) and the records the first
  // apply wrote (the CMS's changes since its listing): the cases start from this mark.
  await cleanApply();
}, 60_000);
afterAll(async () => {
  expect(project.outputs.join('\n')).not.toContain(SECRET_TOKEN);
  await project.close();
});

describe('a run after a clean apply', () => {
  it('passes over every document when nothing changed: no write, no listing but the changes', async () => {
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    // e.md names a category and a user that only the CMS has: it is looked at on every run (the CMS
    // could rename them), vouched for by its stat; every other document is passed over.
    expect(run.json.source.untouched).toBe(documents - 1);
    expect(run.json.source.hashed).toBe(0);
    const records = documents;
    expect(run.json.plan.untouched).toBe(records - 1);
    expect(run.json.plan.counts.unchanged).toBe(records);
    expect(run.json.plan.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['unchanged article/e']);
    expect(run.cms.writes).toBe(0);
    // One list call per resource that matters (the changes since the last listing), nothing else.
    expect(run.cms.byAction).toEqual({ 'article.get': 1, 'category.get': 1, 'user.get': 1, 'page.get': 1 });
  });

  it('reads an edited file alone and updates its record', async () => {
    await project.write('content/articles/d.md', article('D', 'Delta, edited.'));
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBe(documents - 2);
    expect(changesOf(run.json.plan)).toEqual(['update article/d']);
    expect(run.json.plan.untouched).toBe(documents - 2);
    expect(run.cms.writes).toBe(1);
    expect((await record('article', 'd'))!.body).toContain('Delta, edited.');
  });

  it('plans with the shortcut, sees an edit, writes no state; the apply after it passes files over', async () => {
    await project.write(
      'content/articles/a.md',
      article('A', 'Alpha, edited.', 'category: desk\nauthor: ann\n'),
    );
    // The listing cache and the mark may take the listing of a CMS in which nothing changed.
    const stateFiles = ['state.jsonl', 'state.log.jsonl', 'file-hashes.json'];
    const before = await Promise.all(stateFiles.map((f) => stampOf(path.join('.cms-sync', f))));
    const { run } = await likeWholePass(['plan']);
    expect(run.code, run.stderr).toBe(0);
    // a (edited) is read, e looked at as always; d, written by the last apply, is passed over once
    // its stat can be trusted (2 s after its edit: on a slow machine it may be read once more).
    expect(run.json.source.untouched).toBeGreaterThanOrEqual(documents - 3);
    expect(run.json.source.untouched).toBeLessThanOrEqual(documents - 2);
    expect(changesOf(run.json.plan)).toEqual(['update article/a']);
    expect(run.cms.writes).toBe(0);
    expect(await Promise.all(stateFiles.map((f) => stampOf(path.join('.cms-sync', f))))).toEqual(before);
    // So the apply after the plan passes files over too.
    const applied = await cli(['apply']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.json.source.untouched).toBeGreaterThan(0);
    expect(changesOf(applied.json.plan)).toEqual(['update article/a']);
    await cleanApply();
  });
});

// `plan --out` may take the shortcut, and saves a plan without the records it counted as unchanged
// unseen; `apply <plan-file>` never takes it and compares the saved plan's fingerprint with a whole
// plan's: unchanged records are left out of the fingerprint, so the two agree.
describe('a saved plan', () => {
  it('made with the shortcut, is carried out by apply', async () => {
    try {
      await project.write('content/articles/d.md', article('D', 'Delta, planned ahead.'));
      const plan = await cli(['plan', '--out', 'saved-plan.json']);
      expect(plan.json.source.untouched).toBeGreaterThan(0);
      expect(changesOf(plan.json.plan)).toEqual(['update article/d']);
      const run = await project.run(['apply', 'saved-plan.json']);
      expect(run.code, run.stderr).toBe(0);
      expect((await record('article', 'd'))!.body).toContain('Delta, planned ahead.');
    } finally {
      await project.remove('saved-plan.json');
      await cleanApply();
    }
  });
});

describe('a run that must look at everything', () => {
  it('creates a new file', async () => {
    await project.write('content/articles/n.md', article('N', 'November, new.'));
    documents += 1;
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(run.json.plan.untouched).toBe(0);
    expect(changesOf(run.json.plan)).toEqual(['create article/n']);
    expect(await record('article', 'n')).toBeDefined();
    expect(await hasMark()).toBe(true);
  });

  it('keeps the record of a removed file, run after run, and deletes it with --prune', async () => {
    const { id } = (await record('article', 'g'))!;
    await project.remove('content/articles/g.md');
    documents -= 1;
    for (const pass of ['whole', 'shortcut']) {
      const { run } = await likeWholePass(['apply']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.source.untouched === undefined, pass).toBe(pass === 'whole');
      expect(changesOf(run.json.plan)).toEqual(['keep article/g']);
      expect(await record('article', 'g')).toMatchObject({ id });
    }
    const { run } = await likeWholePass(['apply', '--prune'], { prune: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(changesOf(run.json.plan)).toEqual(['delete article/g']);
    expect(await record('article', 'g')).toBeUndefined();
  });

  // The mark must name no key that is gone from state: an apply --prune after removing a file, or a
  // move, then any plan or apply: the plan reads the file of each record it looks at.
  it('runs again after an apply that deleted a record', async () => {
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
  });

  it('moves the record of a renamed file: same id', async () => {
    const f = (await record('article', 'f'))!;
    await project.write('content/articles/f2.md', await project.read('content/articles/f.md'));
    await project.remove('content/articles/f.md');
    const { run } = await likeWholePass(['apply', '--prune'], { prune: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(changesOf(run.json.plan)).toEqual(['update article/f2 from article/f']);
    expect(await record('article', 'f2')).toMatchObject({ id: f.id });
    expect(await record('article', 'f')).toBeUndefined();
  });

  // The same after a move (the old key, article/f, is gone from state).
  it('runs again after an apply that moved a record', async () => {
    await project.write('content/articles/d.md', article('D', 'Delta, after a move.'));
    const { run } = await likeWholePass(['plan']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(changesOf(run.json.plan)).toEqual(['update article/d']);
  });

  it('moves the record of a file given another slug in front matter: same id', async () => {
    // From a clean mark.
    await cleanApply();
    const m = (await record('article', 'm'))!;
    await project.write('content/articles/m.md', article('M', 'Mike, given a slug.', 'slug: mike\n'));
    const { run } = await likeWholePass(['apply', '--prune'], { prune: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(changesOf(run.json.plan)).toContain('update article/mike from article/m');
    expect(await record('article', 'mike')).toMatchObject({ id: m.id });
    expect(await record('article', 'm')).toBeUndefined();
  });

  it('updates every document that embeds an image replaced in place', async () => {
    const [b, c] = [(await record('article', 'b'))!, (await record('article', 'c'))!];
    await project.write('content/images/pic.png', png(2));
    // Past RACY_MS: the image's new stamp, not its youth, is what tells it changed.
    await settle();
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(run.json.plan.uploads).toHaveLength(1);
    expect(changesOf(run.json.plan).filter((c) => !c.endsWith('article/d'))).toEqual([
      'update article/b',
      'update article/c',
    ]);
    const [media] = (await project.records('media')).slice(-1);
    for (const slug of ['b', 'c'])
      expect((await record('article', slug))!.body).toContain(`data-id="${media!.id}"`);
    expect([b.body, c.body].join()).not.toContain(`data-id="${media!.id}"`);
    expect(await hasMark()).toBe(true);
  });

  it('renders again what a config change changes (media.defaultSize)', async () => {
    await project.write('sync.config.ts', config('small'));
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(changesOf(run.json.plan)).toEqual(['update article/b', 'update article/c']);
    expect((await record('article', 'b'))!.body).toContain('data-size="small"');
    expect(await hasMark()).toBe(true);
  });

  it('edits the alt text of an image in the media library (a media edit: a whole pass)', async () => {
    await project.write('content/articles/b.md', article('B', 'Bravo.\n\n![A photo](../images/pic.png)'));
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    expect(run.json.plan.mediaEdits).toHaveLength(1);
  });

  it('trusts no mark once the state files are replaced (a checkout of older ones)', async () => {
    const saved = await mkdtemp(path.join(tmpdir(), 'cms-sync-e2e-state-'));
    const stateFiles = ['state.jsonl', 'state.log.jsonl'];
    for (const f of stateFiles) await copyFile(path.join(project.dir, '.cms-sync', f), path.join(saved, f));
    await project.write('content/articles/d.md', article('D', 'Delta, edited again.'));
    await cleanApply();
    // Once more: d.md is as this apply left it, so the mark no longer names it.
    await cleanApply();
    const mark = JSON.parse(await readFile(markFile(), 'utf8')) as { attention: { files: string[] } };
    expect(mark.attention.files).not.toContain('content/articles/d.md');
    for (const f of stateFiles) await copyFile(path.join(saved, f), path.join(project.dir, '.cms-sync', f));
    // As cms-sync says to do when an older state is restored on purpose.
    await rm(path.join(project.dir, '.cms-sync', 'last-state.json'));
    await rm(saved, { recursive: true, force: true });

    let whole = await wholePass();
    const plan = await cli(['plan']);
    expectSamePlan(plan, whole);
    expect(changesOf(plan.json.plan)).toEqual(['adopt article/d']);
    expect(plan.json.source.untouched).toBeUndefined();
    expect(plan.json.plan.untouched).toBe(0);
    whole = await wholePass();
    const run = await cli(['apply']);
    expectSamePlan(run, whole);
    expect(run.json.source.untouched).toBeUndefined();
    expect(run.json.result?.failures).toEqual([]);
    expect(run.cms.writes).toBe(0);
  });
});

describe('what the CMS changed since', () => {
  it('reports a record edited by hand as drift, run after run; and one deleted there', async () => {
    await thenRepair(
      async () => {
        await editByHand('article', 'h', { title: 'H, by hand' });
        for (const pass of [1, 2, 3]) {
          const { run } = await likeWholePass(['apply']);
          expect(run.code, `run ${pass}: ${run.stderr}`).toBe(3);
          expect(run.json.source.untouched, `run ${pass}`).toBeGreaterThan(0);
          expect(changesOf(run.json.plan)).toEqual(['drift article/h changed-in-cms']);
        }
        expect((await record('article', 'h'))!.title).toBe('H, by hand');

        const k = (await record('article', 'k'))!;
        await project.api({ resource: 'article', action: 'delete', id: k.id });
        for (const pass of ['listed in full', 'again']) {
          const { run } = await likeWholePass(['apply']);
          expect(run.code, `${pass}: ${run.stderr}`).toBe(3);
          if (pass === 'listed in full') expect(run.json.source.untouched).toBeUndefined();
          expect(changesOf(run.json.plan)).toEqual([
            'drift article/h changed-in-cms',
            'drift article/k deleted-in-cms',
          ]);
        }
      },
      async () => {},
    );
  });

  // --strict makes no call before the files are read, so it cannot list the CMS's changes first to
  // know which records to look at again: it reads everything, and finds a drift a whole pass finds.
  it('reports a record edited by hand as drift under --strict too', async () => {
    await thenRepair(
      async () => {
        await editByHand('article', 'h', { title: 'H, strict' });
        const whole = await wholePass();
        expect(changesOf(whole.plan)).toEqual(['drift article/h changed-in-cms']);
        const run = await cli(['plan', '--strict']);
        expectSamePlan(run, whole);
      },
      async () => {},
    );
  });

  // And lasting: apply --strict lists the CMS's changes after reading the files and saves that
  // listing, so the mark it leaves must name the drifted record, or the next apply (which lists
  // the changes since, none) would pass it over until its file changed.
  it('reports a drift that an apply --strict missed on the next apply', async () => {
    await thenRepair(
      async () => {
        await editByHand('article', 'h', { title: 'H, strict' });
        const strict = await cli(['apply', '--strict']);
        expect(strict.json.result?.failures).toEqual([]);
        const whole = await wholePass();
        expect(changesOf(whole.plan)).toEqual(['drift article/h changed-in-cms']);
        const run = await cli(['apply']);
        expectSamePlan(run, whole);
        expect(run.code).toBe(3);
      },
      async () => {},
    );
  });

  it('gives a new file the record the CMS has under its slug', async () => {
    const made = await project.api({
      resource: 'article',
      action: 'add',
      data: { title: 'P', slug: 'p', body: '<p>Papa.</p>', status: 0 },
    });
    await project.write('content/articles/p.md', article('P', 'Papa.'));
    documents += 1;
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeUndefined();
    // An update of that id, not a create.
    expect(changesOf(run.json.plan)).toEqual(['update article/p']);
    expect(run.json.plan.changes.find((c) => c.key === 'article/p')).toMatchObject({ id: made.id });
    expect((await project.records('article')).filter((r) => r.slug === 'p')).toEqual([
      expect.objectContaining({ id: made.id, title: 'P' }),
    ]);
  });
});

describe('files with problems, and failed writes', () => {
  // A warning comes with the build of its file, which a whole pass too leaves out once the file is
  // as at its last write (UnparsedDocument): it is reported by the run that writes the file. An
  // error is reported on every run, and its file's record is kept.
  it('reports problems as a whole pass does, run after run, and keeps the record of a broken file', async () => {
    await thenRepair(
      async () => {
        await project.write('content/articles/bad.md', '---\ntitle: [Bad\n---\n\nBroken YAML.\n');
        await project.write('content/articles/w.md', article('W', 'Whiskey.', 'mood: calm\n'));
        documents += 1;
        for (const pass of ['whole', 'shortcut', 'shortcut again']) {
          const { run, whole } = await likeWholePass(['apply']);
          expect(run.json.source.untouched === undefined, pass).toBe(pass === 'whole');
          expect(run.code, pass).toBe(1);
          expect(run.code, pass).toBe(whole.code);
          const first = pass === 'whole';
          expect(changesOf(run.json.plan)).toEqual([
            ...(first ? ['create article/w'] : []),
            'keep article/bad',
          ]);
          expect(run.json.plan.problems.map((p) => `${p.file} ${p.severity}`).sort(), pass).toEqual([
            'content/articles/bad.md error',
            ...(first ? ['content/articles/w.md warning'] : []),
          ]);
          expect(run.stderr).toMatch(/content\/articles\/bad\.md:2:\d+: front matter is not valid YAML/);
        }
      },
      () => project.write('content/articles/bad.md', article('Bad', 'Its YAML broke, and was mended.')),
    );
  });

  it('retries a write that failed on the next apply', async () => {
    await project.write('content/articles/d.md', article('D', 'Delta, failed once.'));
    const failed = await cli(['apply'], { FAIL_EDITS: '1' });
    expect(failed.code).toBe(1);
    expect(failed.json.result?.failures).toHaveLength(1);
    expect(await hasMark()).toBe(false);
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(changesOf(run.json.plan)).toEqual(['update article/d']);
    expect((await record('article', 'd'))!.body).toContain('Delta, failed once.');
    expect(await hasMark()).toBe(true);
  });
});

describe('file stamps', () => {
  it('reads a touched file and writes nothing; sees an edit that keeps the size and the times', async () => {
    const file = path.join(project.dir, 'content/articles/t.md');
    const now = new Date();
    await utimes(file, now, now);
    let whole = await wholePass();
    let run = await cli(['apply']);
    expectSamePlan(run, whole);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(run.json.source.hashed).toBeGreaterThan(0);
    expect(changesOf(run.json.plan)).toEqual([]);
    expect(run.cms.writes).toBe(0);
    // Once its stamp is old enough to be kept, an edit of the same size that puts the times back.
    await settle();
    await cleanApply();
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    const edited = text.replace('Tango, touched.', 'Tango, TOUCHED.');
    expect(edited.length).toBe(text.length);
    await project.write('content/articles/t.md', edited);
    await utimes(file, before.atime, before.mtime);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    whole = await wholePass();
    run = await cli(['apply']);
    expectSamePlan(run, whole);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(changesOf(run.json.plan)).toEqual(['update article/t']);
    expect((await record('article', 't'))!.body).toContain('TOUCHED');
  });
});

describe('relations', () => {
  // A whole pass looks for loops among the parents of every category (checkRelations). desk.md says
  // `parent: world`; world.md, edited, now says `parent: desk`. A whole pass reports the loop in both
  // files and keeps both records (exit 1). Read alone, world.md shows no loop: a record that names
  // one of its own resource makes the run look at everything.
  it('sees a loop of parents that an edit of one category file makes', async () => {
    const world = await project.read('content/categories/world.md');
    try {
      await project.write('content/categories/world.md', '---\nname: World\nparent: desk\n---\n');
      const whole = await wholePass();
      expect(changesOf(whole.plan)).toEqual(['keep category/desk', 'keep category/world']);
      const run = await cli(['plan']);
      expectSamePlan(run, whole);
      expect(run.json.source.untouched).toBeUndefined();
    } finally {
      await project.write('content/categories/world.md', world);
      await cleanApply();
    }
  });

  it('updates a category whose file changed; the articles naming it stay as they are', async () => {
    await project.write('content/categories/desk.md', '---\nname: The desk\n---\n');
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(changesOf(run.json.plan)).toEqual(['update category/desk']);
    expect((await record('category', 'desk'))!.name).toBe('The desk');
  });

  it('reports a user of content/ edited in the CMS as drift', async () => {
    await thenRepair(
      async () => {
        await editByHand('user', 'ann', { name: 'Ann by hand' });
        const { run } = await likeWholePass(['apply']);
        expect(run.code, run.stderr).toBe(3);
        expect(run.json.source.untouched).toBeGreaterThan(0);
        expect(changesOf(run.json.plan)).toEqual(['drift user/ann changed-in-cms']);
      },
      async () => {},
    );
  });

  it('takes no note of an edit in the CMS of a user that only the CMS has', async () => {
    await editByHand('user', 'bob', { name: 'Robert' });
    const { run } = await likeWholePass(['apply']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(changesOf(run.json.plan)).toEqual([]);
  });

  // A whole pass checks every file's relations against the slugs files and the CMS have. e.md names
  // `category: wire`, a category made in the CMS, which the CMS then renames to `wires`: a whole pass
  // reports "category `wire` does not exist" and keeps article/e (exit 1). A file that names a record
  // only the CMS has is looked at on every run for that reason.
  it('sees that a category only the CMS has, named by a file, has another slug there now', async () => {
    await editByHand('category', 'wire', { slug: 'wires' });
    const whole = await wholePass();
    expect(changesOf(whole.plan)).toEqual(['keep article/e']);
    expect(whole.plan.problems.map((p) => p.text)).toEqual([
      expect.stringContaining('content/articles/e.md:3:1: category `wire` does not exist'),
    ]);
    const run = await cli(['apply']);
    expectSamePlan(run, whole);
    expect(run.json.source.untouched).toBeGreaterThan(0);
    expect(run.code).toBe(1);
  });
});

describe('a no-op after a clean apply', () => {
  it('reads no line of state: nothing to look at again, and state is not read to count it', async () => {
    const small = await createProject({
      'content/articles/one.md': article('One', 'First.'),
      'content/articles/two.md': article('Two', 'Second.'),
    });
    try {
      // Files changed in the last 2 s are always read again: let them age first.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await small.applyInProcess()).exitCode).toBe(0);
      const { parseCounts } = await import('../../dist/state/state-lines.js');
      const before = parseCounts.recordLines;
      const result = await small.applyInProcess();
      expect(result.exitCode).toBe(0);
      expect(result.source.untouched).toBe(2);
      expect(result.plan?.counts.unchanged).toBe(2);
      expect(parseCounts.recordLines).toBe(before);
    } finally {
      await small.close();
    }
  });
});
