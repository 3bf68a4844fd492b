import { closeSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';

/**
 * size, mtimeMs, ctimeMs and inode: while none of them changes, a file's bytes are those read
 * when they were recorded (git's index rests on the same). ctime cannot be set back by any tool,
 * so a `touch -d` or `rsync -t` that restores mtime still changes the stamp. The hash cache keeps
 * one per file, the state index one for state.json.
 */
export type FileStamp = [size: number, mtimeMs: number, ctimeMs: number, ino: number];

export function stampOf(stats: Stats): FileStamp {
  return [stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino];
}

/** Whether `recorded` (a stamp, or a tuple that starts with one) is the stamp of `stats`. */
export function sameStamp(recorded: readonly unknown[], stats: Stats): boolean {
  return (
    recorded[0] === stats.size &&
    recorded[1] === stats.mtimeMs &&
    recorded[2] === stats.ctimeMs &&
    recorded[3] === stats.ino
  );
}

/**
 * A file's bytes and the stat of the very file they were read from: one open file, so a rename
 * in between cannot pair one file's stat with another's bytes.
 */
export function readStamped(file: string): { bytes: Buffer; stats: Stats } {
  const fd = openSync(file, 'r');
  try {
    return { stats: fstatSync(fd), bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}
