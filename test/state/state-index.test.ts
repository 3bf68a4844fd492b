import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { computePlan, type RemoteListing } from '../../src/plan/compute-plan.js';
import { inputHash, pipelineFingerprint, reuseRecord } from '../../src/records/build-record.js';
import { RECORD_RESOURCES, type RecordResource } from '../../src/resources.js';
import { sha256 } from '../../src/sha256.js';
import {
  emptyState,
  readStateFile,
  serializeState,
  STATE_FILE,
  writeStateFile,
  type State,
} from '../../src/state/state-file.js';
import { StateStore } from '../../src/state/journal.js';
import { readIndexedState, STATE_INDEX_FILE } from '../../src/state/state-index.js';

const config = resolveConfig({}, { projectDir: '/project', env: {} });

/** A state as apply leaves it: records with input hashes (so they can be reused unrendered) and markers. */
function sampleState(): State {
  const state = emptyState('local');
  for (let i = 1; i <= 3; i++) {
    const slug = `story-${i}`;
    const fileSha = sha256(`bytes of ${slug}`);
    // What reuseRecord expects of a file with these bytes, under this config, without images.
    const hash = inputHash(fileSha, pipelineFingerprint(config), []);
    state.records[`article/${slug}`] = {
      file: `content/articles/${slug}.md`,
      id: 100 + i,
      input: { fileSha, hash, media: [] },
      marker: `2026-11-0${i}T10:00:00.000Z`,
      owner: 'created',
      remote: { body: `r-body-${i}`, title: `r-title-${i}` },
      source: { body: `s-body-${i}`, title: `s-title-${i}` },
    };
  }
  state.records['category/politics'] = {
    file: 'content/categories/politics.md',
    id: 7,
    owner: 'adopted',
    remote: { name: 'r' },
    source: { name: 's' },
  };
  state.media['sha256:ff'] = { id: 9, source: 'content/images/a.png' };
  return state;
}

/** An apply that finds nothing to write: it indexes the state.json it read in full. */
async function quietRun(dir: string): Promise<void> {
  const store = await StateStore.open(dir, 'local');
  await store.save();
  await store.close();
}

/** state.json as apply writes it, then indexed by a quiet run. */
async function writeIndexed(dir: string, state: State): Promise<void> {
  await writeStateFile(dir, state);
  await quietRun(dir);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-state-index-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the state index', () => {
  it('stands for the state.json it was made from: same records, same digests, written back byte for byte', async () => {
    await writeIndexed(dir, sampleState());
    const text = await readFile(path.join(dir, STATE_FILE), 'utf8');
    const read = await readStateFile(dir, 'local');
    expect(read.indexed).toBe(true);
    expect(read.state).toEqual(JSON.parse(text));
    expect(serializeState(read.state)).toBe(text);
  });

  it(
    'lets a plan of unchanged records run without parsing a single digest, and parses state.json once when one is ' +
      'read',
    async () => {
      await writeIndexed(dir, sampleState());
      const bytes = await readFile(path.join(dir, STATE_FILE));
      let parses = 0;
      const state = readIndexedState(
        dir,
        { stats: await stat(path.join(dir, STATE_FILE)), sha: () => sha256(bytes) },
        () => {
          parses++;
          return JSON.parse(bytes.toString('utf8')) as State;
        },
      )!;
      expect(state).toBeDefined();

      // Every article unchanged since the last write, the CMS's markers as state recorded them.
      const desired = Object.entries(state.records)
        .filter(([key]) => key.startsWith('article/'))
        .map(([key, entry]) =>
          reuseRecord(
            { key, resource: 'article', slug: key.slice(8), file: entry.file, hash: entry.input!.fileSha! },
            entry,
            { config, imageHashes: [] },
          )!,
        );
      expect(desired.every((record) => record !== undefined)).toBe(true);
      const listing = Object.fromEntries(
        RECORD_RESOURCES.map((r) => [r, { records: [], complete: true }]),
      ) as unknown as Record<RecordResource, RemoteListing>;
      listing.article = {
        records: desired.map((d) => ({
          id: state.records[d.key]!.id,
          slug: d.slug,
          updated_at: state.records[d.key]!.marker,
        })),
        complete: true,
        fields: ['id', 'slug', 'updated_at'],
      };
      listing.category = { records: [{ id: 7, slug: 'politics' }], complete: true };
      const base = {
        desired,
        remote: listing,
        state,
        protectedKeys: new Set<string>(),
        failedFiles: new Set<string>(),
        resources: config.resources,
        prune: false,
        maxDeletes: 20,
        overwriteDrift: false,
        changeMarker: 'updated_at',
      };
      for (const trustState of [false, true]) {
        const plan = computePlan({ ...base, trustState });
        expect(plan.changes.filter((c) => c.key.startsWith('article/')).map((c) => c.action)).toEqual([
          'unchanged',
          'unchanged',
          'unchanged',
        ]);
      }
      expect(parses).toBe(0);

      expect(state.records['article/story-2']!.source).toEqual({ body: 's-body-2', title: 's-title-2' });
      expect(state.records['category/politics']!.remote).toEqual({ name: 'r' });
      expect(parses).toBe(1);
    },
  );

  it(
    'is ignored once state.json changes (a hand edit, a git merge), even keeping its size and mtime: the file is ' +
      'read as it is',
    async () => {
      const file = path.join(dir, STATE_FILE);
      // Whole seconds an hour ago, so that the edit below can put the very same mtime back.
      const anHourAgo = Math.floor(Date.now() / 1000) - 3600;
      await writeStateFile(dir, sampleState());
      await utimes(file, anHourAgo, anHourAgo);
      await quietRun(dir);
      expect((await readStateFile(dir, 'local')).indexed).toBe(true);
      const text = await readFile(file, 'utf8');

      const before = await stat(file);
      await writeFile(file, text.replace('"id": 102', '"id": 202').replace('s-title-2', 's-title-X'));
      await utimes(file, anHourAgo, anHourAgo);
      const after = await stat(file);
      expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
      const read = await readStateFile(dir, 'local');
      expect(read.indexed).toBe(false);
      expect(read.state.records['article/story-2']).toMatchObject({
        id: 202,
        source: { title: 's-title-X' },
      });
    },
  );

  it(
    'stands by its stat once state.json is older than the index, and by the sha256 of its bytes before (a coarse ' +
      'clock could hide a second write)',
    async () => {
      await writeIndexed(dir, sampleState());
      const file = path.join(dir, STATE_FILE);
      const index = path.join(dir, STATE_INDEX_FILE);
      const written = await stat(file);
      const bytes = await readFile(file);
      let hashed = 0;
      const read = () =>
        readIndexedState(
          dir,
          { stats: written, sha: () => (hashed++, sha256(bytes)) },
          () => JSON.parse(bytes.toString('utf8')) as State,
        );

      // Index and state.json in the same clock tick: checked by content.
      await utimes(index, written.atimeMs / 1000, written.mtimeMs / 1000);
      expect(read()).toBeDefined();
      expect(hashed).toBe(1);
      // The same, but the bytes are not those the index was made from: not trusted.
      await writeFile(
        index,
        (await readFile(index, 'utf8')).replace(/"sha":"[0-9a-f]+"/, `"sha":"${sha256('other bytes')}"`),
      );
      await utimes(index, written.atimeMs / 1000, written.mtimeMs / 1000);
      expect(read()).toBeUndefined();
      // The index written after state.json's last change: its stat stands, nothing is hashed.
      await utimes(index, written.mtimeMs / 1000 + 1, written.mtimeMs / 1000 + 1);
      hashed = 0;
      expect(read()).toBeDefined();
      expect(hashed).toBe(0);
    },
  );

  it('is ignored when it is broken or of another version', async () => {
    await writeIndexed(dir, sampleState());
    const index = path.join(dir, STATE_INDEX_FILE);
    const good = await readFile(index, 'utf8');
    const variants = [
      good.slice(0, good.length / 2),
      good.replace('"version":1', '"version":2'),
      good.replace(/("article\/story-2":\{"file":"[^"]+","id":)\d+/, '$1"x"'),
      good.replace(/("sha256:ff":\{"id":)\d+/, '$1null'),
    ];
    expect(new Set([good, ...variants]).size).toBe(5);
    for (const broken of variants) {
      await writeFile(index, broken);
      const read = await readStateFile(dir, 'local');
      expect(read.indexed).toBe(false);
      expect(read.state).toEqual(JSON.parse(await readFile(path.join(dir, STATE_FILE), 'utf8')));
    }
  });

  it(
    'lets a digest be assigned like any property; a run that writes state.json leaves the index to the next quiet ' +
      'run',
    async () => {
      await writeIndexed(dir, sampleState());
      const { state } = await readStateFile(dir, 'local');
      state.records['article/story-1']!.remote = { body: 'new', title: 'new' };
      expect(state.records['article/story-1']!.remote).toEqual({ body: 'new', title: 'new' });
      await writeStateFile(dir, state);
      expect((await readStateFile(dir, 'local')).indexed).toBe(false);
      await quietRun(dir);
      const again = await readStateFile(dir, 'local');
      expect(again.indexed).toBe(true);
      expect(again.state.records['article/story-1']).toMatchObject({
        remote: { body: 'new', title: 'new' },
        source: { body: 's-body-1', title: 's-title-1' },
      });
      expect(again.state.records['article/story-3']!.source).toEqual({
        body: 's-body-3',
        title: 's-title-3',
      });
    },
  );
});
