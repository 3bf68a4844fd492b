import { open, rename, rm, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncDirectory, tempPathFor } from './atomic-write.js';

/** A change to one file: its whole new content, or its removal. */
export type FileOp = { kind: 'write'; path: string; data: string } | { kind: 'unlink'; path: string };

interface Submission {
  ops: FileOp[];
  undo: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Temp files written and fsynced at once within a batch. */
const WRITE_CONCURRENCY = 16;

/**
 * Makes file changes durable in batches (group commit). While one batch is being fsynced, new
 * submissions wait and then go together, so under concurrent load the cost of the fsyncs is
 * shared instead of paid once per write; alone, a write goes at once.
 *
 * A batch is applied in three steps, each durable before the next: every new content goes to a
 * fsynced temp file; the temp files are renamed over their targets and each directory touched
 * is fsynced; then removals happen and their directories are fsynced. So a removal never
 * becomes durable before a write submitted earlier (the id counter written before a record file
 * is deleted), and after a crash every file holds an old or a new version, never a torn one.
 *
 * If a batch fails, every submission in it is rejected and its `undo` runs (latest first), so
 * the in-memory view drops changes that never reached the disk.
 */
export class GroupCommit {
  #pending: Submission[] = [];
  #running: Promise<void> | undefined;

  submit(ops: FileOp[], undo: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ ops, undo, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  /** Resolves when nothing is waiting to be made durable. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    // Let the writes submitted in this same turn of the event loop join the first batch.
    await Promise.resolve();
    for (;;) {
      const batch = this.#pending.splice(0);
      if (batch.length === 0) {
        // Cleared in the same synchronous step as the emptiness check: a submission made after
        // this point starts a new run instead of waiting on one that has ended.
        this.#running = undefined;
        return;
      }
      try {
        await applyOps(batch.flatMap((s) => s.ops));
        for (const s of batch) s.resolve();
      } catch (error) {
        for (const s of [...batch].reverse()) s.undo();
        for (const s of batch) s.reject(error);
      }
    }
  }
}

async function applyOps(ops: FileOp[]): Promise<void> {
  // Only the last change to a path matters within one batch (an add then a delete: no file).
  const last = new Map<string, FileOp>();
  for (const op of ops) {
    last.delete(op.path);
    last.set(op.path, op);
  }
  const writes = [...last.values()].filter((op) => op.kind === 'write');
  const unlinks = [...last.values()].filter((op) => op.kind === 'unlink');

  const temps = new Map<string, string>();
  try {
    for (let start = 0; start < writes.length; start += WRITE_CONCURRENCY) {
      await Promise.all(
        writes.slice(start, start + WRITE_CONCURRENCY).map(async (op) => {
          const temp = tempPathFor(op.path);
          temps.set(op.path, temp);
          const handle = await open(temp, 'w', 0o644);
          try {
            await handle.writeFile(op.data);
            await handle.sync();
          } finally {
            await handle.close();
          }
        }),
      );
    }
    for (const op of writes) {
      await rename(temps.get(op.path)!, op.path);
      temps.delete(op.path);
    }
  } finally {
    await Promise.all([...temps.values()].map((temp) => rm(temp, { force: true })));
  }
  await syncDirectories(writes);

  for (const op of unlinks) {
    try {
      await unlink(op.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  await syncDirectories(unlinks);
}

async function syncDirectories(ops: FileOp[]): Promise<void> {
  await Promise.all([...new Set(ops.map((op) => dirname(op.path)))].map(fsyncDirectory));
}
