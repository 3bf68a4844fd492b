import path from 'node:path';
import { writeLine } from '../terminal-text.js';
import { evenPieces } from '../text-pieces.js';

/** What a command touches of the outside world, passed in so tests can run commands in-process. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where a question is answered (apply's confirmation); absent in tests that drive the CLI in-process. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user asks the process to stop (Ctrl-C / SIGTERM). */
  interrupted: Promise<void>;
  /** Aborted at the same moment as `interrupted` resolves; derived from it when absent. */
  signal?: AbortSignal;
}

/** What ends a command's work early: the first Ctrl-C or SIGTERM. */
export class Interrupted extends Error {
  constructor(signal: string) {
    super(`Interrupted (${signal}).`);
    this.name = 'Interrupted';
  }
}

/**
 * The process's IO. The first SIGINT or SIGTERM resolves `interrupted` and aborts `signal`, so a
 * command can stop starting new work and finish what is in flight; the second exits at once.
 * A command that never looks at either (import, init…) gets no handler: the first signal ends the
 * process at once, even in the middle of a long synchronous step.
 */
export function processIO(): CliIO {
  const controller = new AbortController();
  let resolveInterrupted: () => void = () => {};
  const interrupted = new Promise<void>((resolve) => (resolveInterrupted = resolve));
  let listened = false;
  let signals = 0;
  const onSignal = (name: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      controller.abort(new Interrupted(name));
      resolveInterrupted();
      return;
    }
    writeLine(
      process.stderr,
      `\n${name} again: stopped at once. Writes in flight when it came are in the journal: ` +
        'the next run replays it and checks them, so nothing is sent twice.',
    );
    process.exit(130);
  };
  // Handlers only for a command that listens: a handler runs only when the thread is free, so
  // with one installed, a command busy in one long synchronous step (an import converting a huge
  // document) could not be stopped at all; without, the signal ends the process at once.
  const listen = () => {
    if (listened) return;
    listened = true;
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  };
  quietOnBrokenPipe(process.stdout);
  quietOnBrokenPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    get interrupted() {
      listen();
      return interrupted;
    },
    get signal() {
      listen();
      return controller.signal;
    },
  };
}

/** The signal of a CliIO: its own, or one aborted when `interrupted` resolves. */
export function interruptSignal(io: CliIO): AbortSignal {
  if (io.signal) return io.signal;
  const controller = new AbortController();
  void io.interrupted.then(() => controller.abort(new Interrupted('interrupt')));
  return controller.signal;
}

/**
 * `cms-sync plan | head -3`: the reader went away. What was left to print has no reader, so it
 * is dropped quietly rather than crashing the command with a stack trace.
 */
function quietOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

/**
 * Until the returned function is called, an event loop that drains (nothing left to wait for,
 * yet the command never finished — e.g. a config whose export is a promise that never settles)
 * ends the process with a message and exit code 1 rather than silently with Node's 13.
 */
export function guardUnfinished(stderr: NodeJS.WritableStream): () => void {
  const onDrained = () => {
    writeLine(
      stderr,
      'cms-sync stopped before the command finished: it was waiting for something that can no longer happen ' +
        '(for example, sync.config.ts exports a promise that never settles). ' +
        'Check the config; if it is fine, please report this.',
    );
    process.exit(1);
  };
  process.once('beforeExit', onDrained);
  return () => process.off('beforeExit', onDrained);
}

export { writeLine };

/**
 * Characters written at a time by writeParts. Node encodes a string it writes into one malloc'd
 * buffer of three bytes a character; kept under glibc's mmap threshold (128 KiB at start), such a
 * buffer never raises that threshold (see src/write-text.ts).
 */
const PARTS_CHUNK = 32 * 1024;

/**
 * Writes `parts` one after another, about 32 KiB at a time (a longer part is cut), waiting whenever
 * the stream asks to (a pipe read slowly), so that a long output is never one string in memory.
 */
export async function writeParts(stream: NodeJS.WritableStream, parts: Iterable<string>): Promise<void> {
  for (const piece of evenPieces(parts, PARTS_CHUNK)) {
    if (closed(stream)) return;
    if (!stream.write(piece)) await drained(stream);
  }
}

/** Whether the stream takes nothing more (a reader that went away): what is left is not written. */
function closed(stream: NodeJS.WritableStream): boolean {
  const { destroyed, writableEnded } = stream as { destroyed?: boolean; writableEnded?: boolean };
  return destroyed === true || writableEnded === true;
}

/** Resolves when the stream can take more, or will take nothing more (closed, or failed). */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  if (closed(stream)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}

/** Each command file exports a `registerX(program, io, setExit)` that adds itself to the program. */
export type SetExit = (code: number) => void;

/** The project directory: --cwd, relative to where cms-sync was started. */
export function projectDirOf(io: CliIO, cwdFlag: string | undefined): string {
  return path.resolve(io.cwd, cwdFlag ?? '.');
}
