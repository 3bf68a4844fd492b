import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

// A site handed to you for import can name folders outside itself: your own notes must not
// come into content/ (and from there, with apply, to the CMS).

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

async function withNotes(): Promise<string> {
  const notes = path.join(project!.dir, 'notes');
  await mkdir(notes, { recursive: true });
  await writeFile(path.join(notes, 'diary.md'), '---\ntitle: Diary\n---\nPrivate.\n');
  return notes;
}

describe('import reads only inside the site', () => {
  it("Hugo: a contentDir outside the site stops the import; a language's too", async () => {
    project = await projectWithSite('hugo');
    await withNotes();
    await project.site('evil', { 'hugo.toml': 'contentDir = "../notes"\n' });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'evil']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      "evil: `contentDir` is `../notes`, outside the site: an import reads only the site's",
    );
    await project.site('evil2', { 'hugo.toml': '[languages.fr]\ncontentDir = "../notes"\n' });
    const fr = await runInProcess(project.dir, ['import', 'hugo', 'evil2']);
    expect(fr.stderr).toContain('`languages.fr.contentDir` is `../notes`, outside the site');
    expect(await project.files().catch(() => [])).not.toContain('content/pages/diary.md');
  });

  it('Eleventy: an input folder outside the site stops the import', async () => {
    project = await projectWithSite('jekyll');
    await withNotes();
    await project.site('e', { 'eleventy.config.js': 'export default { dir: { input: "../notes" } };\n' });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'e']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('the input folder `../notes` is outside the site');
  });

  it('a content folder that is a link out of the site is not followed: nothing in it is imported', async () => {
    project = await projectWithSite('hugo');
    const notes = await withNotes();
    await project.site('linked', {
      'hugo.toml': 'title = "x"\n',
      'content/about.md': '---\ntitle: About\n---\nHi.\n',
    });
    await symlink(notes, path.join(project.dir, 'linked/content/posts'));
    const run = await runInProcess(project.dir, ['import', 'hugo', 'linked']);
    expect(await project.files()).not.toContain('content/articles/diary.md');
    expect(await project.files()).toContain('content/pages/about.md');
    expect(run.stdout + run.stderr).not.toContain('Private.');
  });
});
