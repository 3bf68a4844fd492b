import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFile } from '../../src/replace-file.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

// An import writes each new file beside its name and links it there: a process stopped halfway
// leaves no file cut short under the name, which the next import would keep as existing.
describe('createFile', () => {
  it('creates the file whole, and leaves nothing beside it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'create-file-'));
    await createFile(path.join(dir, 'a.md'), 'whole\n');
    expect(await readFile(path.join(dir, 'a.md'), 'utf8')).toBe('whole\n');
    expect(await readdir(dir)).toEqual(['a.md']);
  });

  it('never writes over a file or through a link put at the name, and leaves nothing beside it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'create-file-'));
    await writeFile(path.join(dir, 'a.md'), 'an editor’s\n');
    await expect(createFile(path.join(dir, 'a.md'), 'import\n')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(dir, 'a.md'), 'utf8')).toBe('an editor’s\n');
    await writeFile(path.join(dir, 'target'), 'elsewhere\n');
    await symlink(path.join(dir, 'target'), path.join(dir, 'b.md'));
    await expect(createFile(path.join(dir, 'b.md'), 'import\n')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(dir, 'target'), 'utf8')).toBe('elsewhere\n');
    expect((await readdir(dir)).sort()).toEqual(['a.md', 'b.md', 'target']);
  });
});
