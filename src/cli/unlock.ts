import type { Command } from 'commander';
import { loadConfig } from '../config/load-config.js';
import { breakLock } from '../state/lock.js';
import { writeLine, type CliIO } from './io.js';
import type { SetExit } from './main.js';
import { projectDirOf } from './run-sync.js';

export function registerUnlock(program: Command, io: CliIO, _setExit: SetExit): void {
  program
    .command('unlock')
    .description('remove a state lock left behind by a cms-sync that is gone (check that none is running first)')
    .addHelpText('after', '\nExample:\n  cms-sync unlock   # only when no other cms-sync is running')
    .action(async () => {
      const config = await loadConfig(projectDirOf(io, program.opts().cwd), io.env);
      const held = await breakLock(config.stateDir);
      writeLine(io.stdout, held ? 'Removed the state lock.' : 'There was no state lock.');
    });
}
