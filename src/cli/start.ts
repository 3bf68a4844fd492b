import type { Command } from 'commander';
import { type CliIO, projectDirOf, type SetExit } from './io.js';
import { writeLine } from './io.js';
import { runSyncCommand } from './sync-command.js';
import { LOCAL_TARGET } from '../sync/target.js';

/**
 * `npm start`: apply the sample content/ into the local CMS, then keep that CMS running so a
 * person can look at the result in a browser.
 */
export function registerStart(program: Command, io: CliIO, setExit: SetExit): void {
  program
    .command('start')
    .description('apply content/ to the local CMS, then keep it running and show where to look')
    .option('--port <n>', 'port of the local CMS', (v) => Number(v), 4321)
    .addHelpText('after', '\nExample:\n  cms-sync start --port 4321')
    .action(async (options: { port: number }) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const run = { projectDir, port: options.port, keepTarget: true, allowLocal: true };
      const { exitCode, target } = await runSyncCommand('apply', {}, io, run);
      setExit(exitCode);
      if (exitCode === 130) {
        await target.close();
        return;
      }
      if (!target.local) {
        // Another process serves the local CMS (or the target is a real CMS): nothing to keep up.
        if (target.identity === LOCAL_TARGET)
          writeLine(io.stdout, `\nOpen ${target.baseUrl}/ to see what the CMS holds.`);
        await target.close();
        return;
      }
      writeLine(io.stdout, `\nOpen ${target.local.url}/ to see what the CMS holds. Press Ctrl-C to stop.`);
      await io.interrupted;
      await target.close();
    });
}
