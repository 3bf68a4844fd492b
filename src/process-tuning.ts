import { requireLater } from './require-later.js';

const v8 = requireLater<typeof import('node:v8')>('node:v8');
const vm = requireLater<typeof import('node:vm')>('node:vm');

/**
 * V8 settings that suit the CLI's own process, each set when a run first needs it, so that a run
 * that needs none does not load node:v8. Off unless the CLI turns it on (src/cli/main.ts): a
 * program that imports cms-sync keeps its own flags.
 */
let ownsProcess = false;
let wasmSet = false;
let heapSet = false;
let renderSet = false;

export function tuneThisProcess(): void {
  ownsProcess = true;
}

/**
 * Before undici is loaded. undici parses HTTP with a WebAssembly module: V8 compiles it quickly,
 * then recompiles the hot parser with its optimising tier on a background thread, and the process
 * waits for that at exit. For a command that makes a few requests, that costs more CPU than the
 * command itself.
 */
export function beforeHttp(): void {
  if (!ownsProcess || wasmSet) return;
  wasmSet = true;
  v8().setFlagsFromString('--liftoff-only');
}

/** From this many documents read, what a run holds and makes is large enough to matter (see below). */
export const MANY_DOCUMENTS_READ = 1000;

let documentsRead = 0;

/**
 * Told of each document the process reads and parses (a file vouched for by its stat is not read).
 * A run that reads many holds a small index per document for its whole length, and makes much
 * more short-lived garbage (each file's bytes, text and front matter). By default V8 lets the heap
 * grow to up to four times what survived the last full collection before it collects again, so
 * the process's peak follows the archive three or four times over. Growing by half instead keeps
 * the peak near what is live, for more frequent full collections, which cost little next to
 * reading and rendering the files. Render workers started afterwards share the flag. A run that
 * reads few files (a no-op, a few edits) is left as it is, however large the site: there the
 * extra collections cost CPU and lower its peak by nothing. The flag is set early in a large run,
 * since a limit V8 has already raised holds until its next full collection.
 */
export function documentRead(): void {
  documentsRead += 1;
  if (documentsRead >= MANY_DOCUMENTS_READ) growHeapByHalf();
}

/**
 * Told that this process will run pass after pass (watch). Each pass over a large site makes a
 * no-op's short-lived garbage: with V8's default growth, the heap of a long run climbs to several
 * times what is live before a full collection, pass after pass. So the heap grows by half here
 * too, from the start, however few documents each pass reads.
 */
export function manyPasses(): void {
  growHeapByHalf();
}

function growHeapByHalf(): void {
  if (!ownsProcess || heapSet) return;
  heapSet = true;
  v8().setFlagsFromString('--heap-growing-percent=50');
}

/**
 * Before render workers start. mdast-util-from-markdown's `compiler` runs once a document and makes
 * a hundred or so closures a call: TurboFan's optimisation of it in each worker gains nothing, and
 * its compile memory, on one of V8's own threads, is kept mapped by malloc and made resident again
 * by a long render (docs/performance-history.md, "Whose memory grows"). V8 is told not to optimise
 * functions of that name, which also leaves remark-stringify's and rehype-stringify's one-line
 * `compiler`s to the interpreter (what they call is optimised as ever). Only in the CLI's process,
 * as above, and only once: the value it replaces is V8's own constant, so a thread that reads the
 * flag meanwhile (watch's) reads one or the other.
 */
export function beforeRenderWorkers(): void {
  if (!ownsProcess || renderSet) return;
  renderSet = true;
  v8().setFlagsFromString('--turbo-filter=-compiler');
  if (documentsRead >= MANY_DOCUMENTS_READ) collectScanGarbage();
}

/**
 * A run that read many documents ends its scan with a heap grown to half as much again as what it
 * held at its last full collection, and much of what the scan held (the folder's listing, the
 * stats, what each file's parse kept until its document was spooled) is garbage by then. Left to
 * V8, that heap stays at its size until a collection well into rendering, while the render
 * workers start beside it, so the scan's high-water mark adds to theirs. One full collection here,
 * while no worker runs yet, gives those pages back first. Node offers no call for it:
 * `--expose-gc` puts V8's `gc` into the contexts made while it is set, so it is set for one new
 * context only, and unset before any worker is made. The collection also compacts: what survives
 * the scan lies scattered over pages that are mostly empty, which a collection that does not move
 * it keeps, so the heap would stay near its size after all.
 */
function collectScanGarbage(): void {
  v8().setFlagsFromString('--expose-gc');
  let gc: unknown;
  try {
    gc = vm().runInNewContext('gc');
  } finally {
    v8().setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc !== 'function') return;
  v8().setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    v8().setFlagsFromString('--no-compact-on-every-full-gc');
  }
}
