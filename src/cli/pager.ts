import { writeLine, type CliIO } from './io.js';
import { terminalText } from '../terminal-text.js';

/** What decides whether a plan goes through a pager. */
export interface PagerContext {
  /** stdout is a terminal. */
  isTTY: boolean;
  /** Its height in lines, when known. */
  rows: number | undefined;
  env: NodeJS.ProcessEnv;
  json: boolean;
  /** false with --no-pager. */
  pager: boolean;
  /** Lines of the text to show. */
  lines: number;
}

/**
 * The pager command to show a text through, or undefined to print it: only on a terminal, and
 * only for a text longer than the screen; never with --no-pager, --json or in CI. `$PAGER` is
 * used when set (set empty, it turns paging off, as in git); otherwise `less -FRX`: quit when
 * the text fits after all, keep colours, leave the text on the screen after quitting.
 */
export function choosePager(context: PagerContext): string | undefined {
  const { env } = context;
  if (!context.pager || context.json || !context.isTTY) return undefined;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0') return undefined;
  if (!context.rows || context.lines < context.rows) return undefined;
  if (env.PAGER !== undefined) return env.PAGER.trim() || undefined;
  return 'less -FRX';
}

/**
 * Prints `text` on stdout, through a pager when choosePager picks one. The pager gets the text
 * on its stdin and the terminal as its stdout; when it cannot be started, the text is printed.
 */
export async function printPaged(
  io: CliIO,
  text: string,
  options: { json: boolean; pager: boolean },
): Promise<void> {
  const command = choosePager({
    isTTY: io.stdout.isTTY === true,
    rows: (io.stdout as { rows?: number }).rows,
    env: io.env,
    json: options.json,
    pager: options.pager,
    lines: text.split('\n').length,
  });
  if (!command) {
    writeLine(io.stdout, text);
    return;
  }
  const { spawn } = await import('node:child_process');
  const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: io.env });
  // The reader may quit before reading everything: that is not an error.
  child.stdin.on('error', () => {});
  child.stdin.end(`${terminalText(text)}\n`);
  const code = await new Promise<number>((resolve) => {
    child.on('error', () => resolve(127));
    child.on('close', (status) => resolve(status ?? 0));
  });
  // 126/127: the shell could not run the pager; the text must still be seen.
  if (code === 126 || code === 127) writeLine(io.stdout, text);
}
