import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('an import never writes through a symbolic link', () => {
  it('leaves what a linked folder or file of content/ leads to as it was, and says which it passed', async () => {
    project = await projectWithSite('hugo');
    const dir = project.dir;
    await project.site('tiny', {
      'hugo.toml': 'baseURL = "https://x.example/"\n',
      'content/about.md': '---\ntitle: About\n---\nUs.\n',
      'content/contact.md': '---\ntitle: Contact\n---\nMail.\n',
      'content/posts/hello.md': '---\ntitle: Hello\n---\n![logo](/logo.png)\n',
      'static/logo.png': 'png',
    });
    // Outside content/: a folder someone's home might hold, and a file that must stay as it is.
    await mkdir(path.join(dir, 'elsewhere'));
    await writeFile(path.join(dir, 'bashrc'), 'keep me\n');
    await mkdir(path.join(dir, 'content/pages'), { recursive: true });
    await symlink(path.join(dir, 'elsewhere'), path.join(dir, 'content/articles'));
    await symlink(path.join(dir, 'elsewhere'), path.join(dir, 'content/media'));
    await symlink(path.join(dir, 'bashrc'), path.join(dir, 'content/pages/about.md'));
    // A link to nothing yet: writing the page would create the file it names.
    await symlink(path.join(dir, 'elsewhere', 'created.md'), path.join(dir, 'content/pages/contact.md'));

    const run = await runInProcess(dir, ['import', 'hugo', 'tiny', '--force']);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain(
      'content/articles/hello.md is in articles/, a symbolic link to a folder outside content/; not written',
    );
    expect(run.stdout + run.stderr).toContain('content/pages/about.md is a symbolic link; not written');
    expect(run.stdout + run.stderr).toContain('content/pages/contact.md is a symbolic link; not written');
    expect(run.stdout + run.stderr).toContain(
      'content/media/logo.png is in media/, a symbolic link to a folder outside content/; not copied',
    );
    expect(await readdir(path.join(dir, 'elsewhere'))).toEqual([]);
    expect(await readFile(path.join(dir, 'bashrc'), 'utf8')).toBe('keep me\n');
  });
});
