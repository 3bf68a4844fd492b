#!/usr/bin/env node
// The compiled CLI lives in dist/bundle/ (built by `npm ci` through the `prepare` script; see
// scripts/bundle.mjs for why it is bundled).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// undici parses HTTP with a WebAssembly module. V8 compiles it quickly, then recompiles the hot
// parser with its optimising tier on a background thread, and the process waits for that at
// exit: for a command that makes a few requests, it costs more CPU than the command itself.
// Set here, for the CLI's own process only: a program that imports cms-sync keeps its flags.

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'cms-sync is not built yet: run `npm run build` (or `npm ci`) in the cms-sync checkout.\n',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
