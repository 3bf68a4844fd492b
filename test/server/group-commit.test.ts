import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/server/storage/group-commit.js';
import { removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(removeDir));
});

describe('GroupCommit', () => {
  it('applies writes and removals; within a batch the last change to a path wins', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const commit = new GroupCommit();
    await commit.submit([{ kind: 'write', path: join(dir, 'kept.json'), data: 'old' }], () => {});
    // Submitted in one turn: they share a batch.
    await Promise.all([
      commit.submit([{ kind: 'write', path: join(dir, 'a.json'), data: '1' }], () => {}),
      commit.submit([{ kind: 'write', path: join(dir, 'a.json'), data: '2' }], () => {}),
      commit.submit([{ kind: 'write', path: join(dir, 'gone.json'), data: 'x' }], () => {}),
      commit.submit([{ kind: 'unlink', path: join(dir, 'gone.json') }], () => {}),
      commit.submit([{ kind: 'write', path: join(dir, 'kept.json'), data: 'new' }], () => {}),
    ]);
    await commit.idle();
    expect((await readdir(dir)).sort()).toEqual(['a.json', 'kept.json']);
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('2');
    expect(await readFile(join(dir, 'kept.json'), 'utf8')).toBe('new');
  });

  it('rejects a failed batch, undoes it latest first, leaves no temp file, and goes on', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const commit = new GroupCommit();
    const undone: string[] = [];
    const results = await Promise.allSettled([
      commit.submit([{ kind: 'write', path: join(dir, 'ok.json'), data: '1' }], () => undone.push('ok')),
      commit.submit([{ kind: 'write', path: join(dir, 'missing-dir', 'x.json'), data: '1' }], () =>
        undone.push('bad'),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(undone).toEqual(['bad', 'ok']);
    expect(await readdir(dir)).toEqual([]);
    await commit.submit([{ kind: 'write', path: join(dir, 'later.json'), data: '1' }], () => {});
    expect(await readdir(dir)).toEqual(['later.json']);
  });
});
