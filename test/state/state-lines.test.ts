import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_FILE, StateStore } from '../../src/state/journal.js';
import {
  compactState,
  emptyState,
  readStateFile,
  serializeState,
  STATE_BASE_FILE,
  STATE_FILE,
  STATE_LOG_FILE,
  writeStateFile,
  type State,
  type StateRecord,
} from '../../src/state/state-file.js';
import { parseCounts, plainState } from '../../src/state/state-lines.js';
import { sourceFiles } from '../../src/server/page/source-files.js';
import { legacyStateJson } from '../helpers/state.js';

const record = (i: number): StateRecord => ({
  file: `content/articles/story-${i}.md`,
  id: 100 + i,
  input: { fileSha: 'f'.repeat(64), hash: `hash-${i}`, media: [] },
  marker: `2026-11-0${(i % 9) + 1}T10:00:00.000Z`,
  owner: 'created',
  remote: { body: `r-body-${i}`, title: `r-title-${i}` },
  source: { body: `s-body-${i}`, title: `s-title-${i}` },
});

function sampleState(count: number): State {
  const state = emptyState('local');
  for (let i = 0; i < count; i++) state.records.set(`article/story-${i}`, record(i));
  state.records.set('category/politics', {
    file: 'content/categories/politics.md',
    id: 7,
    owner: 'adopted',
    remote: { name: 'r' },
    source: { name: 's' },
  });
  state.media['sha256:ff'] = { id: 9, source: 'content/images/a.png' };
  return state;
}

/** The state's entries as plain data (serial left out: it is the save's, not the entries'). */
const plain = (state: State) => {
  const { records, media } = plainState(state);
  return { records, media };
};

async function files(dir: string): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(path.join(dir, name));
  return out;
}

async function putFiles(dir: string, wanted: Record<string, Buffer>): Promise<void> {
  for (const name of await readdir(dir)) if (!(name in wanted)) await rm(path.join(dir, name));
  for (const [name, bytes] of Object.entries(wanted)) await writeFile(path.join(dir, name), bytes);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-state-lines-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the state as lines', () => {
  it('behaves as a Map: keys, entries, has, delete, spread, and the same object on every read', async () => {
    await writeStateFile(dir, sampleState(3));
    const { state } = await readStateFile(dir, 'local');
    const expected = sampleState(3);
    expect([...state.records.keys()]).toEqual([...expected.records.keys()].sort());
    const keys: string[] = [];
    for (const [key] of state.records) keys.push(key);
    expect(keys).toEqual([...state.records.keys()]);
    expect(state.records.size).toBe(4);
    expect(state.records.get('article/story-1')).toBe(state.records.get('article/story-1'));
    expect(state.records.has('article/story-2')).toBe(true);
    expect(state.records.get('article/none')).toBeUndefined();
    expect({ ...state.media }).toEqual(expected.media);
    expect(plain(state)).toEqual(plain(expected));
    expect(state.records.delete('article/story-2')).toBe(true);
    expect(state.records.has('article/story-2')).toBe(false);
    expect([...state.records.entries()].map(([key]) => key)).not.toContain('article/story-2');
  });

  it('parses no line a run does not read, and only the digests it compares', async () => {
    await writeStateFile(dir, sampleState(1000));
    const before = { ...parseCounts };
    const { state } = await readStateFile(dir, 'local');
    // Reading one record parses its block of lines, not the state.
    expect(state.records.get('article/story-3')!.id).toBe(103);
    expect(parseCounts.blocks - before.blocks).toBe(1);
    expect(parseCounts.fields - before.fields).toBeLessThanOrEqual(128);
    // What a run reads of every record (keys, files, ids, inputs) parses every line's fields once, no digest.
    for (const entry of state.records.values()) void [entry.file, entry.input?.fileSha];
    for (const entry of state.records.values()) void entry.id;
    expect(parseCounts.fields - before.fields).toBe(1001);
    expect(parseCounts.digests - before.digests).toBe(0);
    expect(state.records.get('article/story-7')!.source).toEqual({ body: 's-body-7', title: 's-title-7' });
    expect(state.records.get('article/story-7')!.remote).toEqual({ body: 'r-body-7', title: 'r-title-7' });
    expect(parseCounts.digests - before.digests).toBe(1);
    // The media entries are their own blocks: reading records parsed none of them.
    const blocks = parseCounts.blocks;
    expect(state.media['sha256:ff']).toEqual({ id: 9, source: 'content/images/a.png' });
    expect(parseCounts.blocks - blocks).toBe(1);
  });

  it('hands out entries that copy as plain objects, and saves a field assigned in place', async () => {
    await writeStateFile(dir, sampleState(3));
    const { state } = await readStateFile(dir, 'local');
    // Spread and JSON of an entry never read before carry every field, digests included.
    expect({ ...state.records.get('article/story-1')! }).toEqual(record(1));
    expect(JSON.parse(JSON.stringify(state.records.get('article/story-2')))).toEqual(record(2));
    expect(JSON.parse(JSON.stringify(state.media['sha256:ff']))).toEqual({
      id: 9,
      source: 'content/images/a.png',
    });
    const store = await StateStore.open(dir, 'local');
    store.state.records.get('article/story-0')!.marker = 'assigned';
    store.state.media['sha256:ff']!.alt = 'A photo';
    // A front matter id kept in a record's inputs (what finds renames by id) survives the lines.
    const withSiteId = { ...record(9), input: { ...record(9).input!, siteId: 'story-nine' } };
    await store.recordWritten('article/story-9', withSiteId);
    await store.save();
    await store.close();
    const log = await readFile(path.join(dir, STATE_LOG_FILE), 'utf8');
    expect(log.split('\n').filter(Boolean)).toHaveLength(4);
    const again = (await readStateFile(dir, 'local')).state;
    expect(again.records.get('article/story-0')!.marker).toBe('assigned');
    expect(again.media['sha256:ff']!.alt).toBe('A photo');
    expect(plain(again).records['article/story-9']).toEqual(withSiteId);
    await compactState(dir, again);
    expect((await readStateFile(dir, 'local')).state.records.get('article/story-9')!.input?.siteId).toBe(
      'story-nine',
    );
  });

  it('opens without reading a record line: they are read once, on first use, under what the log set', async () => {
    await writeStateFile(dir, sampleState(1000));
    const first = await StateStore.open(dir, 'local');
    await first.recordWritten('article/story-5', { ...record(5), marker: 'from the log' });
    await first.recordWritten('article/new', record(2000));
    await first.save();
    await first.close();
    const before = parseCounts.recordLines;
    const store = await StateStore.open(dir, 'local');
    const { state } = store;
    expect([state.lineage, state.serial, state.media['sha256:ff']?.id]).toEqual([expect.any(String), 1, 9]);
    expect(parseCounts.recordLines).toBe(before);
    // A record written and saved before anything reads the rest: the save reads none of it either.
    await store.recordWritten('article/story-6', { ...record(6), marker: 'unread base' });
    await store.save();
    expect(parseCounts.recordLines).toBe(before);
    // The first look reads every line once; the log's records hide their base line.
    expect(state.records.get('article/story-5')!.marker).toBe('from the log');
    expect(parseCounts.recordLines - before).toBe(1001);
    expect(state.records.size).toBe(1002);
    expect(state.records.get('article/story-6')!.marker).toBe('unread base');
    expect(parseCounts.recordLines - before).toBe(1001);
    await store.close();
    const again = (await readStateFile(dir, 'local')).state;
    const expected = sampleState(1000);
    expected.records.set('article/story-5', { ...record(5), marker: 'from the log' });
    expected.records.set('article/story-6', { ...record(6), marker: 'unread base' });
    expected.records.set('article/new', record(2000));
    expect(plain(again)).toEqual(plain(expected));
  });

  it('saves the removal of a base record, and of a record set by the log, but not of one never on file', async () => {
    await writeStateFile(dir, sampleState(300));
    const first = await StateStore.open(dir, 'local');
    await first.recordWritten('article/logged', record(400));
    await first.save();
    await first.close();
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-7', null);
    await store.recordWritten('article/logged', null);
    await store.recordWritten('article/fleeting', record(500));
    await store.recordWritten('article/fleeting', null);
    await store.save();
    await store.close();
    const log = (await readFile(path.join(dir, STATE_LOG_FILE), 'utf8')).split('\n').filter(Boolean);
    expect(log.slice(2, -1)).toEqual([
      '["record","article/logged",null]',
      '["record","article/story-7",null]',
    ]);
    const expected = sampleState(300);
    expected.records.delete('article/story-7');
    expect(plain((await readStateFile(dir, 'local')).state)).toEqual(plain(expected));
  });

  it('appends a one-record save to the log (under 1 KiB), leaving the base as it was', async () => {
    await writeStateFile(dir, sampleState(1000));
    const base = await readFile(path.join(dir, STATE_BASE_FILE));
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-5', {
      ...record(5),
      remote: { body: 'new', title: 'r-title-5' },
    });
    await store.save();
    await store.close();
    expect((await readFile(path.join(dir, STATE_BASE_FILE))).equals(base)).toBe(true);
    const log = await readFile(path.join(dir, STATE_LOG_FILE), 'utf8');
    expect(log.length).toBeLessThan(1024);
    expect(log.split('\n')).toHaveLength(3);
    const { state } = await readStateFile(dir, 'local');
    expect(state.records.get('article/story-5')!.remote.body).toBe('new');
    expect(state.serial).toBe(1);
    expect(existsSync(path.join(dir, JOURNAL_FILE))).toBe(false);
  });

  it('holds the records a run writes as their lines until the save, read back as they were written', async () => {
    const store = await StateStore.open(dir, 'local');
    const handedIn = Array.from({ length: 300 }, (_, i) => record(i));
    for (const [i, entry] of handedIn.entries()) await store.recordWritten(`article/story-${i}`, entry);
    // Not the objects handed in: their lines, in a file that no killed run leaves behind.
    expect(store.state.records.get('article/story-7')).not.toBe(handedIn[7]);
    expect({ ...store.state.records.get('article/story-7')! }).toEqual(record(7));
    expect((await readdir(dir)).filter((name) => !name.startsWith('journal'))).toEqual([]);
    // The last block was read before a write came after it, and is assigned to afterwards.
    expect(store.state.records.get('article/story-260')!.id).toBe(360);
    await store.recordWritten('article/story-300', record(300));
    store.state.records.get('article/story-261')!.marker = 'assigned';
    expect(store.state.records.get('article/story-300')!.id).toBe(400);
    expect(store.state.records.get('article/story-261')!.marker).toBe('assigned');
    await store.recordWritten('article/renamed', record(5), 'article/story-5');
    await store.save();
    // Written after a save (as watch does): saved by the next one.
    await store.recordWritten('article/story-9', { ...record(9), marker: 'again' });
    await store.save();
    await store.close();
    const expected: Record<string, StateRecord> = {};
    for (let i = 0; i <= 300; i++) expected[`article/story-${i}`] = record(i);
    expected['article/story-261']!.marker = 'assigned';
    expected['article/story-9']!.marker = 'again';
    expected['article/renamed'] = record(5);
    delete expected['article/story-5'];
    expect(plain((await readStateFile(dir, 'local')).state).records).toEqual(expected);
    expect((await readdir(dir)).sort()).toEqual(['last-state.json', STATE_BASE_FILE, STATE_LOG_FILE].sort());
  });

  it('compacts the log into the base once it outgrows its share, removals and renames included', async () => {
    await writeStateFile(dir, sampleState(20));
    const expected = sampleState(20);
    for (let round = 0; round < 100; round++) {
      const store = await StateStore.open(dir, 'local');
      const key = `article/story-${round % 20}`;
      // Long markers, so that the log reaches the size that compacts it within a few dozen saves.
      const entry = { ...record(round % 20), marker: `round-${round}-${'x'.repeat(1500)}` };
      await store.recordWritten(key, entry);
      expected.records.set(key, entry);
      if (round === 60) {
        await store.recordWritten('article/renamed', record(3), 'article/story-3');
        await store.recordWritten('article/story-4', null);
        expected.records.set('article/renamed', record(3));
        expected.records.delete('article/story-3');
        expected.records.delete('article/story-4');
      }
      await store.save();
      await store.close();
    }
    const { state } = await readStateFile(dir, 'local');
    expect(plain(state)).toEqual(plain(expected));
    expect(state.serial).toBe(100);
    // Compacted along the way: the log holds only what came after the last compaction.
    const log = await readFile(path.join(dir, STATE_LOG_FILE), 'utf8');
    expect(log.split('\n').length).toBeLessThan(100);
    expect(JSON.parse((await readFile(path.join(dir, STATE_BASE_FILE), 'utf8')).split('\n')[0]!).serial).toBe(
      100 - log.split('\n').filter((line) => line.startsWith('{')).length,
    );
  });

  it('saves what changes after a compaction in the same process: edits, moves, removals', async () => {
    // A cold apply's first save compacts every record written; a watch then saves each pass.
    const store = await StateStore.open(dir, 'local');
    const expected = emptyState('local');
    for (let i = 0; i < 30; i++) {
      await store.recordWritten(`article/story-${i}`, record(i));
      expected.records.set(`article/story-${i}`, record(i));
    }
    await store.save();
    expect(await readFile(path.join(dir, STATE_LOG_FILE), 'utf8')).toBe('');
    const logLines = async () =>
      (await readFile(path.join(dir, STATE_LOG_FILE), 'utf8')).split('\n').filter((l) => l.startsWith('["'));
    const check = async () =>
      expect(plain((await readStateFile(dir, 'local')).state)).toEqual(plain(expected));
    await check();

    // Second pass: a record written again, one assigned in place, one moved, one removed.
    const edited = { ...record(1), marker: 'edited' };
    await store.recordWritten('article/story-1', edited);
    expected.records.set('article/story-1', edited);
    store.state.records.get('article/story-2')!.marker = 'in place';
    expected.records.set('article/story-2', { ...record(2), marker: 'in place' });
    await store.recordWritten('article/moved', record(3), 'article/story-3');
    expected.records.set('article/moved', record(3));
    expected.records.delete('article/story-3');
    await store.recordWritten('article/story-4', null);
    expected.records.delete('article/story-4');
    await store.save();
    await check();
    expect(await logLines()).toHaveLength(5);

    // Third pass: removals of records changed in the last, and of one the compaction wrote
    // that was set again first; nothing else is written again.
    await store.recordWritten('article/story-1', null);
    await store.recordWritten('article/moved', null);
    store.state.records.set('article/story-5', { ...record(5), marker: 'set again' });
    store.state.records.delete('article/story-5');
    for (const key of ['article/story-1', 'article/moved', 'article/story-5']) expected.records.delete(key);
    await store.save();
    await store.close();
    await check();
    expect(await logLines()).toHaveLength(8);
  });

  it('loses nothing when killed at any byte of a save, nor at any step of a compaction', async () => {
    await writeStateFile(dir, sampleState(5));
    const first = await StateStore.open(dir, 'local');
    await first.recordWritten('article/story-1', { ...record(1), marker: 'one' });
    await first.save();
    await first.close();
    // A run whose writes reached the journal; the save is what gets killed.
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-2', { ...record(2), marker: 'two' });
    await store.recordWritten('article/story-4', null);
    await store.mediaUploaded('url:https://example.com/x.png', {
      id: 11,
      source: 'https://example.com/x.png',
    });
    await store.close();
    const expected = plain(store.state);
    const before = await files(dir);

    const reopened = await StateStore.open(dir, 'local');
    await reopened.save();
    await reopened.close();
    const logBefore = before[STATE_LOG_FILE]!;
    const logAfter = await readFile(path.join(dir, STATE_LOG_FILE));
    expect(logAfter.subarray(0, logBefore.length)).toEqual(logBefore);
    // Killed after any number of the appended bytes reached the disk (the journal not yet removed).
    for (let cut = logBefore.length; cut <= logAfter.length; cut++) {
      await putFiles(dir, { ...before, [STATE_LOG_FILE]: logAfter.subarray(0, cut) });
      const read = await StateStore.readOnly(dir, 'local');
      expect(plain(read.state), `cut at byte ${cut}`).toEqual(expected);
    }
    // The next save after a torn append cuts the torn lines off before it appends.
    await putFiles(dir, { ...before, [STATE_LOG_FILE]: logAfter.subarray(0, logAfter.length - 3) });
    const resumed = await StateStore.open(dir, 'local');
    await resumed.save();
    await resumed.close();
    expect(plain((await StateStore.readOnly(dir, 'local')).state)).toEqual(expected);
    expect(
      (await readFile(path.join(dir, STATE_LOG_FILE), 'utf8'))
        .split('\n')
        .every((l) => !l || l.endsWith(']') || l.endsWith('}')),
    ).toBe(true);

    // A compaction: killed with the new base half written (a temp file), after its rename (the old
    // log still there), and after the log was emptied (the journal still there).
    await putFiles(dir, before);
    const compacted = await StateStore.open(dir, 'local');
    const newBase = serializeState({ ...compacted.state, serial: compacted.state.serial + 1 });
    await compacted.close();
    const steps: Array<Record<string, Buffer>> = [
      { ...before, [`${STATE_BASE_FILE}.123.abcd.tmp`]: Buffer.from(newBase.slice(0, newBase.length / 2)) },
      { ...before, [STATE_BASE_FILE]: Buffer.from(newBase) },
      { ...before, [STATE_BASE_FILE]: Buffer.from(newBase), [STATE_LOG_FILE]: Buffer.alloc(0) },
    ];
    for (const [step, wanted] of steps.entries()) {
      await putFiles(dir, wanted);
      const read = await StateStore.readOnly(dir, 'local');
      expect(plain(read.state), `step ${step}`).toEqual(expected);
      expect(read.state.serial, `step ${step}`).toBe(step === 0 ? 1 : 2);
      const next = await StateStore.open(dir, 'local');
      await next.save();
      await next.close();
      expect(plain((await StateStore.readOnly(dir, 'local')).state), `step ${step}, saved`).toEqual(expected);
    }
  });

  it('refuses a log of another lineage, and a line that is not an entry', async () => {
    await writeStateFile(dir, sampleState(2));
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-1', record(1));
    await store.save();
    await store.close();
    const log = await readFile(path.join(dir, STATE_LOG_FILE), 'utf8');
    await writeFile(
      path.join(dir, STATE_LOG_FILE),
      log.replace(/"lineage":"[^"]+"/, '"lineage":"elsewhere"'),
    );
    await expect(readStateFile(dir, 'local')).rejects.toThrow(/belongs to another state than state.jsonl/);
    await writeFile(path.join(dir, STATE_LOG_FILE), log);
    const base = await readFile(path.join(dir, STATE_BASE_FILE), 'utf8');
    await writeFile(path.join(dir, STATE_BASE_FILE), base.replace('\n[', '\n<<<<<<< HEAD\n['));
    await expect(readStateFile(dir, 'local')).rejects.toThrow(
      /state.jsonl:2: this line is not a state entry/,
    );
  });
});

/** The state as a reader that parses every line of both files whole would have it (no laziness, no reuse). */
async function eagerRead(
  stateDir: string,
): Promise<{ records: Record<string, unknown>; media: Record<string, unknown> }> {
  const out = { records: {} as Record<string, unknown>, media: {} as Record<string, unknown> };
  const put = (line: unknown[]) => {
    const [kind, key, fields, digests] = line as ['record' | 'media', string, object | null, object?];
    const table = kind === 'record' ? out.records : out.media;
    if (fields === null) delete table[key];
    else table[key] = { ...fields, ...digests };
  };
  const base = (await readFile(path.join(stateDir, STATE_BASE_FILE), 'utf8')).split('\n').slice(1);
  for (const line of base) if (line) put(JSON.parse(line) as unknown[]);
  let pending: unknown[][] = [];
  for (const line of (await readFile(path.join(stateDir, STATE_LOG_FILE), 'utf8')).split('\n')) {
    if (!line) continue;
    const value = JSON.parse(line) as unknown;
    if (Array.isArray(value)) pending.push(value);
    else {
      pending.forEach(put);
      pending = [];
    }
  }
  return out;
}

describe('reading the base through its file', () => {
  it('gives what a parse of every line gives: across blocks and chunks, with the log on top', async () => {
    // Past the scan's 1 MiB chunk, with one line longer than a chunk, keys that need decoding or
    // unescaping, and the log's changes, additions and removals over base lines.
    const state = sampleState(2500);
    state.records.set('article/long', { ...record(1), marker: 'm'.repeat(1_300_000) });
    state.records.set('article/café-☕', { ...record(2), file: 'content/articles/café-☕.md' });
    state.records.set('article/say-"hi"\\', record(3));
    state.media['url:https://example.com/ü.png'] = { id: 12, source: 'https://example.com/ü.png', alt: 'Ü' };
    await writeStateFile(dir, state);
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-7', { ...record(7), marker: 'changed' });
    await store.recordWritten('article/story-2000', { ...record(2000), id: 9999 });
    await store.recordWritten('article/story-1999', null);
    await store.recordWritten('article/new', record(3000));
    await store.recordWritten('article/renamed', record(11), 'article/story-11');
    await store.mediaUploaded('sha256:ee', { id: 13, source: 'content/images/b.png' });
    await store.save();
    await store.close();
    expect((await stat(path.join(dir, STATE_LOG_FILE))).size).toBeGreaterThan(0);

    const expected = await eagerRead(dir);
    expect(Object.keys(expected.records)).toHaveLength(2504);
    const { state: read } = await readStateFile(dir, 'local');
    // Entries read out of file order first: each block is read through the file when first used.
    const keys = Object.keys(expected.records);
    for (let i = 0; i < keys.length; i += 97) {
      const key = keys[(i * 7919) % keys.length]!;
      expect({ ...read.records.get(key)! }).toEqual(expected.records[key]);
    }
    expect(plain(read)).toEqual(expected);
    expect(read.records.get('article/story-1999')).toBeUndefined();
    expect(read.records.get('article/long')!.marker).toHaveLength(1_300_000);
  });

  it('keeps reading the base it opened when a save renames a new one over it', async () => {
    await writeStateFile(dir, sampleState(600));
    const { state: opened } = await readStateFile(dir, 'local');
    const other = sampleState(600);
    for (const entry of other.records.values()) entry.id += 5000;
    await writeStateFile(dir, other);
    // Nothing of the first was parsed before the rename: its entries still come from its own file.
    expect(opened.records.get('article/story-500')!.id).toBe(600);
    expect(opened.records.get('article/story-500')!.source).toEqual(record(500).source);
    expect((await readStateFile(dir, 'local')).state.records.get('article/story-500')!.id).toBe(5600);
  });

  it('stops with a message when its base was overwritten in place while in use', async () => {
    await writeStateFile(dir, sampleState(600));
    const { state } = await readStateFile(dir, 'local');
    const text = await readFile(path.join(dir, STATE_BASE_FILE), 'utf8');
    await writeFile(path.join(dir, STATE_BASE_FILE), text.slice(0, text.length / 3));
    expect(() => state.records.get('article/story-500')!.id).toThrow(/changed while this run was using it/);
  });
});

describe('finding records by a search of the sorted base', () => {
  /** A base of many records, some with long lines, odd keys and users, and a log that sets and removes. */
  async function searchedState() {
    const state = sampleState(3000);
    state.records.set('article/caf\u00e9-"quoted"', record(5000));
    state.records.set('article/long', { ...record(5001), source: { body: 'x'.repeat(40_000) } });
    for (const name of ['ann', 'bob'])
      state.records.set(`user/${name}`, { ...record(6000), file: `content/users/${name}.md` });
    await writeStateFile(dir, state);
    const first = await StateStore.open(dir, 'local');
    await first.recordWritten('article/story-17', { ...record(17), marker: 'from the log' });
    await first.recordWritten('category/world', { ...record(7000), file: 'content/categories/world.md' });
    await first.recordWritten('article/story-18', null);
    await first.save();
    await first.close();
    return state;
  }

  it('finds every key a whole read finds, and no other, reading a few lines rather than the base', async () => {
    await searchedState();
    const whole = (await readStateFile(dir, 'local')).state;
    const keys = [...whole.records.keys()];
    const { state } = await readStateFile(dir, 'local');
    const records = state.records as unknown as {
      searchSorted(): void;
      keysStartingWith(prefix: string): string[];
      baseSorted: boolean | undefined;
    };
    records.searchSorted();
    const before = parseCounts.recordLines;
    for (const key of keys) expect(state.records.get(key)!.id).toBe(whole.records.get(key)!.id);
    for (const key of ['article/story-18', 'article/story-9999', 'article/', 'aaa', 'zzz', 'category/'])
      expect(state.records.has(key)).toBe(false);
    expect(state.records.get('article/story-17')!.marker).toBe('from the log');
    expect(records.keysStartingWith('category/')).toEqual(['category/politics', 'category/world']);
    expect(records.keysStartingWith('user/')).toEqual(['user/ann', 'user/bob']);
    expect(records.keysStartingWith('page/')).toEqual([]);
    // None of it read the base's lines one after another.
    expect(parseCounts.recordLines).toBe(before);
    // Reading them all afterwards keeps the entries found, and finds the base sorted.
    const found = state.records.get('article/story-2000');
    expect(state.records.size).toBe(whole.records.size);
    expect(state.records.get('article/story-2000')).toBe(found);
    expect(records.baseSorted).toBe(true);
    expect(plain(state)).toEqual(plain(whole));
  });

  it('tells a base out of order when it reads it whole', async () => {
    await searchedState();
    const base = path.join(dir, STATE_BASE_FILE);
    const lines = (await readFile(base, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.startsWith('["record","article/story-2"'));
    [lines[at], lines[at + 1]] = [lines[at + 1]!, lines[at]!];
    await writeFile(base, lines.join('\n'));
    const { state } = await readStateFile(dir, 'local');
    expect(state.records.size).toBeGreaterThan(3000);
    expect((state.records as unknown as { baseSorted: boolean }).baseSorted).toBe(false);
  });
});

describe('a state.json of an earlier version', () => {
  it('is read as it is by a plan, and replaced by the line files on the first run that saves', async () => {
    const old = sampleState(4);
    old.serial = 6;
    await writeFile(path.join(dir, STATE_FILE), legacyStateJson(plainState(old)));
    await writeFile(path.join(dir, 'state-index.json'), '{}\n');

    const planned = await StateStore.readOnly(dir, 'local');
    expect(plain(planned.state)).toEqual(plain(old));
    expect(existsSync(path.join(dir, STATE_BASE_FILE))).toBe(false);

    const store = await StateStore.open(dir, 'local');
    await store.save();
    await store.close();
    expect(existsSync(path.join(dir, STATE_FILE))).toBe(false);
    expect(existsSync(path.join(dir, 'state-index.json'))).toBe(false);
    const { state } = await readStateFile(dir, 'local');
    expect(plain(state)).toEqual(plain(old));
    expect([state.lineage, state.serial]).toEqual([old.lineage, 7]);
    expect((await stat(path.join(dir, STATE_LOG_FILE))).size).toBe(0);
  });

  it('gives way to the line files when a migration was killed before removing it', async () => {
    const old = sampleState(2);
    await writeStateFile(dir, old);
    const newer = sampleState(2);
    newer.records.get('article/story-0')!.id = 999;
    await writeFile(path.join(dir, STATE_FILE), legacyStateJson(plainState(newer)));
    const { state } = await readStateFile(dir, 'local');
    expect(state.records.get('article/story-0')!.id).toBe(100);
    const store = await StateStore.open(dir, 'local');
    await store.recordWritten('article/story-1', record(1));
    await store.save();
    await store.close();
    expect(existsSync(path.join(dir, STATE_FILE))).toBe(false);
    expect((await stat(path.join(dir, STATE_LOG_FILE))).size).toBeGreaterThan(0);
  });
});

describe('the local CMS page', () => {
  it("finds each record's source file in the state files", async () => {
    const state = sampleState(2);
    await writeStateFile(dir, state);
    const files = sourceFiles(
      { dir, contentDir: path.join(dir, 'content'), stateFiles: [path.join(dir, STATE_FILE)] },
      () => 'http://127.0.0.1:4000',
    );
    expect(files.fileOf('article', 101)).toBe('content/articles/story-1.md');
    expect(files.fileOf('article', 102)).toBeUndefined();
  });
});
