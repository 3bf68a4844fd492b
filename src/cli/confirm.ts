import type { Plan } from '../plan/compute-plan.js';
import { isCi } from '../sync/target.js';
import { writeLine, type CliIO } from './io.js';

/**
 * Terraform's question before a real apply: only on a terminal (stdin and stdout), never in CI,
 * with --json or --yes, and never for the embedded local CMS, which nobody reads but you.
 */
export function applyConfirmation(
  io: CliIO,
  flags: { json?: boolean; yes?: boolean },
): ((plan: Plan, target: { identity: string; local: boolean }) => Promise<boolean>) | undefined {
  if (flags.yes || flags.json || isCi(io.env) || !io.stdin?.isTTY || !io.stdout.isTTY) return undefined;
  const stdin = io.stdin;
  return async (_plan, target) => {
    if (target.local) return true;
    // Loaded here: every run starts with this module, and only a question on a terminal needs readline.
    const { createInterface } = await import('node:readline/promises');
    const prompt = createInterface({ input: stdin, output: io.stdout, terminal: true });
    try {
      const answer = await prompt.question(
        `\nApply these changes to ${target.identity}?\n  cms-sync will write them as shown above. ` +
          `Only 'yes' will be accepted to approve.\n\n  Enter a value: `,
      );
      if (answer.trim() === 'yes') return true;
      writeLine(io.stderr, 'Apply cancelled: nothing was written.');
      return false;
    } finally {
      prompt.close();
    }
  };
}
