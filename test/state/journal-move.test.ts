import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { StateStore } from '../../src/state/journal.js';
import { emptyState, writeStateFile, type StateRecord } from '../../src/state/state-file.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const entry = (file: string): StateRecord => ({ id: 7, file, owner: 'created', source: {}, remote: {} });

it('moves a renamed record in one journal line: a run killed right after it leaves one key, not two', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-journal-move-'));
  const state = emptyState('local');
  state.records.set('article/old-name', entry('content/articles/old-name.md'));
  await writeStateFile(dir, state);

  const store = await StateStore.open(dir, 'local');
  await store.recordWritten('article/new-name', entry('content/articles/new-name.md'), 'article/old-name');
  expect([...store.state.records.keys()]).toEqual(['article/new-name']);
  // Killed here: the journal has the line, state.json still has the old key.
  await store.close();

  const replayed = await StateStore.readOnly(dir, 'local');
  expect([...replayed.state.records.keys()]).toEqual(['article/new-name']);
  expect(replayed.state.records.get('article/new-name')!.file).toBe('content/articles/new-name.md');
});
