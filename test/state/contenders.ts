import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONTENDER = fileURLToPath(new URL('./fixtures/claim-contender.mjs', import.meta.url));

/**
 * The contenders run the built claim code (dist/). Build it here when it is missing or older
 * than src/state or src/server; tsc emits even when other folders have type errors.
 */
export async function ensureClaimCodeBuilt(): Promise<void> {
  const built = await mtime(join(ROOT, 'dist', 'state', 'claim-file.js'));
  const sources = Math.max(
    await newest(join(ROOT, 'src', 'state')),
    await newest(join(ROOT, 'src', 'server')),
  );
  if (built >= sources) return;
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
  if ((await mtime(join(ROOT, 'dist', 'state', 'claim-file.js'))) === 0) {
    throw new Error('could not build dist/: run `npm run build`');
  }
}

/** A process that ran and is gone: its pid stands for a cms-sync killed with -9. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** A contender process for the state lock (`lock`) or the local CMS data dir (`data`) in `dir`. */
export class Contender {
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | undefined;
  private readonly exited: Promise<void>;

  constructor(kind: 'lock' | 'data', dir: string) {
    this.child = spawn(process.execPath, [CONTENDER, kind, dir], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        this.lines.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        this.flush();
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get pid(): number {
    return this.child.pid!;
  }

  send(command: 'take' | 'release' | 'exit'): void {
    this.child.stdin!.write(`${command}\n`);
  }

  /** The next line the contender prints. */
  next(): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`contender ${this.pid} said nothing for 20 s`)),
        20_000,
      );
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.flush();
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) this.child.stdin!.end('exit\n');
    await this.exited;
  }

  kill(): Promise<void> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  private flush(): void {
    if (!this.waiting || this.lines.length === 0) return;
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve(this.lines.shift()!);
  }
}

async function mtime(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

async function newest(dir: string): Promise<number> {
  let latest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, await mtime(join(entry.parentPath, entry.name)));
  }
  return latest;
}
