// The fastest plain way to read and hash every file under a folder: what any sync tool must do
// at least. Imported by bench/incremental.mjs for its in-process baseline, and run as a script
// (`node bench/read-and-hash.mjs DIR`) for the same work as a process of its own.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function readAndHash(root) {
  let files = 0;
  let bytes = 0;
  const walk = (folder) => {
    for (const e of readdirSync(folder, { withFileTypes: true })) {
      const p = path.join(folder, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const data = readFileSync(p);
        createHash('sha256').update(data).digest('hex');
        files += 1;
        bytes += data.length;
      }
    }
  };
  walk(root);
  return { files, bytes };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  console.log(JSON.stringify(readAndHash(process.argv[2])));
