import type { Command } from 'commander';
import { loadConfig } from '../config/load-config.js';
import { describeHolder } from '../state/claim-file.js';
import { unlockState } from '../state/lock.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';
import { localStateDir } from '../sync/target.js';

export function registerUnlock(program: Command, io: CliIO, setExit: SetExit): void {
  program
    .command('unlock')
    .description('remove a state lock left behind by a cms-sync that is gone')
    .option('--force', 'remove the lock even if its holder may still be running')
    .addHelpText(
      'after',
      '\nA lock whose holder still runs on this host, runs on another host, or cannot be read is kept' +
        '\nunless --force is given.\n\nExample:\n  cms-sync unlock',
    )
    .action(async (flags: { force?: boolean }) => {
      const config = await loadConfig(projectDirOf(io, program.opts().cwd), io.env);
      // The embedded local CMS keeps its state (and lock) apart from the committed one: look at
      // the state of the configured target first, then at the other.
      const local = localStateDir(config);
      const dirs = config.target.baseUrl ? [config.stateDir, local] : [local, config.stateDir];
      let result = await unlockState(dirs[0]!, { force: flags.force ?? false });
      if (result.outcome === 'none') result = await unlockState(dirs[1]!, { force: flags.force ?? false });
      if (result.outcome === 'none') return writeLine(io.stdout, 'There was no state lock.');
      if (result.outcome === 'changed') {
        writeLine(
          io.stderr,
          'The state lock changed while it was being removed (another cms-sync took it): kept.',
        );
        return setExit(3);
      }
      const { found } = result;
      if (found.state === 'unreadable') {
        return writeLine(io.stdout, `Removed the state lock (unreadable: ${found.reason}).`);
      }
      const gone = found.state === 'stale' ? ': its holder is no longer running' : '';
      writeLine(io.stdout, `Removed the state lock (${describeHolder(found.holder)})${gone}.`);
    });
}
