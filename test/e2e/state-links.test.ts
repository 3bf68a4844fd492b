import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openForAppend } from '../../src/state/no-follow.js';
import { createProject, type Project } from './harness.js';

// The state folder is committed, so a pull request can put a symbolic link where a state file
// is. Merged, the next apply must not write where it leads: a link to ~/.bashrc filled with state
// lines, one of which holds a command, is code run at the next login.

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const site = {
  'content/articles/storm.md': '---\ntitle: Storm\n---\n\nWind.\n',
};

describe('symbolic links in the state folder', () => {
  it('a state file that is a link stops the run before anything is read or written through it', async () => {
    project = await createProject(site);
    expect((await project.run(['apply'])).code).toBe(0);
    const victim = path.join(project.dir, 'victim-bashrc');
    await writeFile(victim, 'export PATH=$PATH\n');
    const log = path.join(project.dir, '.cms-sync/state.log.jsonl');
    await rm(log, { force: true });
    await symlink(victim, log);
    await project.write('content/articles/new.md', '---\ntitle: "h$(touch PWNED)"\n---\n\nx\n');

    const run = await project.run(['apply']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      '.cms-sync/state.log.jsonl is a symbolic link (to ' +
        victim +
        '): cms-sync reads and writes its state only',
    );
    expect(await readFile(victim, 'utf8')).toBe('export PATH=$PATH\n');
    // Nothing was sent either: the run stopped before the plan.
    expect((await project.records('article')).map((r) => r.slug)).toEqual(['storm']);
  });

  it('a state folder that is a link is refused, and nothing is written where it leads', async () => {
    project = await createProject(site);
    const elsewhere = path.join(project.dir, 'elsewhere');
    await mkdir(elsewhere);
    await symlink(elsewhere, path.join(project.dir, '.cms-sync'));
    const run = await project.run(['apply']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`.cms-sync is a symbolic link (to ${elsewhere}): cms-sync keeps its state`);
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await project.records('article')).toEqual([]);
  });

  it('a cache that is a link to /dev/zero is refused at once, not read for ever', async () => {
    project = await createProject(site);
    await mkdir(path.join(project.dir, '.cms-sync'));
    await symlink('/dev/zero', path.join(project.dir, '.cms-sync/file-hashes.json'));
    const run = await project.run(['plan']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('.cms-sync/file-hashes.json is a symbolic link (to /dev/zero)');
  });

  it('a link swapped in during a run is not appended through either (O_NOFOLLOW)', async () => {
    project = await createProject(site);
    const victim = path.join(project.dir, 'victim');
    await writeFile(victim, 'keep\n');
    const journal = path.join(project.dir, 'journal.jsonl');
    await symlink(victim, journal);
    await expect(openForAppend(journal)).rejects.toThrow(
      `${journal} is a symbolic link: cms-sync never writes its state through one`,
    );
    expect(await readFile(victim, 'utf8')).toBe('keep\n');
  });
});
