import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { join } from 'node:path';
import { SyncError } from '../../errors.js';
import { RESOURCES, type RemoteRecord, type Resource } from '../../resources.js';
import { sweepTempFiles, TEMP_SUFFIX } from './atomic-write.js';
import { GroupCommit, type FileOp } from './group-commit.js';
import { WriteQueue } from './write-queue.js';

const RECORD_FILE = /^(\d+)\.json$/;
const COUNTERS_FILE = 'counters.json';
/**
 * Record files read per slice while loading. They are read synchronously: a record file is
 * small, and an async read costs several thread-pool round trips per file, which is most of the
 * start-up time of a large resource. Between slices the event loop turns.
 */
const LOAD_SLICE = 2000;

/**
 * The CMS's records: all in memory for reads, one JSON file per record on disk
 * (`<data>/records/<resource>/<id>.json`), so a write costs one small atomic file whatever the
 * number of records.
 *
 * Next ids: on start, next = max(counter file, highest id on disk + 1). The counter file
 * (`<data>/counters.json`) only has to be durable before a record file is removed — the one
 * moment the highest id could vanish from disk — so an add costs a single file.
 *
 * Writes: `exclusive` runs tasks one at a time (validation, id allocation and the change to the
 * in-memory view, with no other write in between); the file changes they make go to a group
 * commit, and `exclusive` resolves only once those are durable. The next task does not wait for
 * the previous one's fsync, which is what lets concurrent writes share fsyncs. The price: a read
 * may see a change a few milliseconds before it is durable; its writer is not answered until it is.
 */
export class RecordStore {
  readonly #dataDir: string;
  readonly #records = new Map<Resource, Map<number, RemoteRecord>>();
  /** `list`'s answer per resource until the next change: a listing of 10,000 records pages 100 times. */
  readonly #listed = new Map<Resource, readonly RemoteRecord[]>();
  readonly #nextId = new Map<Resource, number>();
  readonly #queue = new WriteQueue();
  readonly #commit = new GroupCommit();
  /** Commits started by the task `exclusive` is running now. */
  #taskCommits: Promise<void>[] | undefined;

  private constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  static async open(dataDir: string): Promise<RecordStore> {
    const store = new RecordStore(dataDir);
    // Only this store writes counters.json, and the data dir is claimed: any temp of it is a crash's.
    await sweepTempFiles(dataDir, [COUNTERS_FILE]);
    const counters = await store.#readCounters();
    for (const resource of RESOURCES) {
      const records = await store.#loadResource(resource);
      store.#records.set(resource, records);
      // Loaded in ascending id order; never Math.max(...ids), which overflows the stack on a large resource.
      let highest = 0;
      for (const id of records.keys()) highest = id;
      store.#nextId.set(resource, Math.max(counters[resource] ?? 1, highest + 1));
    }
    return store;
  }

  /** Records of a resource in ascending id order (ids only grow, so insertion order is id order). */
  list(resource: Resource): readonly RemoteRecord[] {
    let listed = this.#listed.get(resource);
    if (!listed) {
      listed = Object.freeze([...this.#map(resource).values()]);
      this.#listed.set(resource, listed);
    }
    return listed;
  }

  count(resource: Resource): number {
    return this.#map(resource).size;
  }

  get(resource: Resource, id: number): RemoteRecord | undefined {
    return this.#map(resource).get(id);
  }

  /**
   * Runs `task` with no other write in between, then waits until every change it made is
   * durable. `insert`, `replace` and `remove` must be called inside a task.
   */
  async exclusive<T>(task: () => Promise<T>): Promise<T> {
    const commits: Promise<void>[] = [];
    const result = await this.#queue.run(async () => {
      this.#taskCommits = commits;
      try {
        return await task();
      } finally {
        this.#taskCommits = undefined;
      }
    });
    await Promise.all(commits);
    return result;
  }

  /** Resolves when every write queued so far is durable. */
  async drain(): Promise<void> {
    await this.#queue.drain();
    await this.#commit.idle();
  }

  /**
   * Allocates the next id, lets `build` produce the record for it (the media upload moves its
   * file into place there) and stores it.
   */
  async insert(
    resource: Resource,
    build: (id: number) => Promise<Omit<RemoteRecord, 'id'>> | Omit<RemoteRecord, 'id'>,
  ): Promise<RemoteRecord> {
    const id = this.#nextId.get(resource) ?? 1;
    // Taken before the write: an id whose write failed is burnt, never handed out twice.
    this.#nextId.set(resource, id + 1);
    const record: RemoteRecord = { id, ...(await build(id)) };
    // Serialised before the record enters memory: a record that cannot be written (JSON.stringify
    // throws) must not stay behind as a phantom that breaks every later listing.
    const write = this.#recordWrite(resource, record);
    const map = this.#map(resource);
    map.set(id, record);
    this.#submit(resource, [write], () => map.delete(id));
    return record;
  }

  replace(resource: Resource, record: RemoteRecord): void {
    const write = this.#recordWrite(resource, record);
    const map = this.#map(resource);
    const previous = map.get(record.id);
    map.set(record.id, record);
    this.#submit(resource, [write], () => (previous ? map.set(record.id, previous) : map.delete(record.id)));
  }

  remove(resource: Resource, id: number): void {
    const map = this.#map(resource);
    const previous = map.get(id);
    map.delete(id);
    const counters = Object.fromEntries(RESOURCES.map((r) => [r, this.#nextId.get(r) ?? 1]));
    this.#submit(
      resource,
      [
        {
          kind: 'write',
          path: join(this.#dataDir, COUNTERS_FILE),
          data: JSON.stringify(counters, null, 2) + '\n',
        },
        { kind: 'unlink', path: this.#recordPath(resource, id) },
      ],
      () => {
        if (!previous) return;
        map.set(id, previous);
        // Put it back in id order, which `list` relies on.
        const sorted = [...map.values()].sort((a, b) => a.id - b.id);
        map.clear();
        for (const record of sorted) map.set(record.id, record);
      },
    );
  }

  /**
   * Queues the file changes of a change just made to `resource`'s records, with how to undo it
   * if they fail. Every change goes through here, so this is where `list`'s copy goes stale.
   */
  #submit(resource: Resource, ops: FileOp[], undo: () => void): void {
    if (!this.#taskCommits) throw new Error('RecordStore: writes must run inside exclusive()');
    this.#listed.delete(resource);
    this.#taskCommits.push(
      this.#commit.submit(ops, () => {
        undo();
        this.#listed.delete(resource);
      }),
    );
  }

  #map(resource: Resource): Map<number, RemoteRecord> {
    let map = this.#records.get(resource);
    if (!map) {
      map = new Map();
      this.#records.set(resource, map);
    }
    return map;
  }

  #resourceDir(resource: Resource): string {
    return join(this.#dataDir, 'records', resource);
  }

  #recordPath(resource: Resource, id: number): string {
    return join(this.#resourceDir(resource), `${id}.json`);
  }

  #recordWrite(resource: Resource, record: RemoteRecord): FileOp {
    return {
      kind: 'write',
      path: this.#recordPath(resource, record.id),
      data: JSON.stringify(record, null, 2) + '\n',
    };
  }

  async #readCounters(): Promise<Partial<Record<Resource, number>>> {
    const path = join(this.#dataDir, COUNTERS_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    return parseJsonFile(path, text) as Partial<Record<Resource, number>>;
  }

  async #loadResource(resource: Resource): Promise<Map<number, RemoteRecord>> {
    const dir = this.#resourceDir(resource);
    await mkdir(dir, { recursive: true });
    const names = await readdir(dir);
    const ids: number[] = [];
    const strayTemps: string[] = [];
    for (const name of names) {
      const match = RECORD_FILE.exec(name);
      if (match) ids.push(Number(match[1]));
      // A temp file is what a crash mid-write leaves behind; its target still holds the old version.
      else if (name.endsWith(TEMP_SUFFIX)) strayTemps.push(name);
    }
    await Promise.all(strayTemps.map((name) => rm(join(dir, name), { force: true })));
    ids.sort((a, b) => a - b);

    const records = new Map<number, RemoteRecord>();
    for (let start = 0; start < ids.length; start += LOAD_SLICE) {
      for (const id of ids.slice(start, start + LOAD_SLICE)) {
        const path = join(dir, `${id}.json`);
        const record = parseJsonFile(path, readFileSync(path, 'utf8'));
        if (typeof record !== 'object' || record === null || Array.isArray(record)) {
          const fix = 'Restore it from a backup or remove it.';
          throw new SyncError(
            'CMS_SYNC_SERVER',
            `The local CMS data file ${path} does not hold a JSON object. ${fix}`,
          );
        }
        records.set(id, { ...(record as RemoteRecord), id });
      }
      // Let timers and I/O run between slices.
      await yieldToEventLoop();
    }
    return records;
  }
}

function parseJsonFile(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyncError(
      'CMS_SYNC_SERVER',
      `The local CMS data file ${path} is not valid JSON (${(error as Error).message}). Restore it from a backup or ` +
        `remove it.`,
      { cause: error },
    );
  }
}
