import type { LiveRun, Project } from '../e2e/harness.js';

/** Polls `probe` until it returns something other than undefined/false; fails after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Resolves once the watcher has printed nothing for `quietMs`: a bounded wait used only to be
 * sure that NO further pass (and write) follows, which no condition can signal.
 */
export async function waitForQuiet(run: LiveRun, quietMs = 400): Promise<void> {
  let count = -1;
  let since = Date.now();
  for (;;) {
    const now = run.stdoutLines.length + run.stderrLines.length;
    if (now !== count) {
      count = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts `cms-sync watch` and waits for the first sync to be done. */
export async function startWatch(
  project: Project,
  args: string[] = [],
  env?: Record<string, string | undefined>,
): Promise<LiveRun> {
  const run = project.spawn(['watch', ...args], env ? { env } : {});
  await run.waitForLine(/Watching content\/ for changes/, {
    stream: args.includes('--json') ? 'stderr' : 'stdout',
    timeoutMs: 15_000,
  });
  return run;
}

/** One record of a resource by slug, as the CMS holds it now. */
export async function record(
  project: Project,
  resource: string,
  slug: string,
): Promise<Record<string, any> | undefined> {
  return (await project.records(resource)).find((r) => r.slug === slug);
}

export function article(title: string, body = 'Text.', extra = ''): string {
  return `---\ntitle: ${title}\n${extra}---\n\n${body}\n`;
}
