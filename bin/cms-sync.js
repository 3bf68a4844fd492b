#!/usr/bin/env node
// The compiled CLI lives in dist/bundle/ (built by `npm ci` through the `prepare` script; see
// scripts/bundle.mjs for why it is bundled).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    'cms-sync is not built yet: run `npm run build` (or `npm ci`) in the cms-sync checkout.\n',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
