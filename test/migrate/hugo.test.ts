import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rewriteUrls } from '../../src/migrate/markdown-urls.js';
import { runInProcess } from './helpers.js';
import { projectWithSite, summary } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('import hugo', () => {
  it('writes bundles, leaf pages and translations as records, copies their images and reports the rest', async () => {
    project = await projectWithSite('hugo');
    const run = await runInProcess(project.dir, ['import', 'hugo', 'site']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(summary(run.stdout)).toBe(
      [
        'Imported Hugo site site into content/ in Xs:',
        '  articles        8 written',
        '  pages           3 written',
        '  categories      2 written',
        '  breaking        0 written',
        '  users           2 written',
        '  media           5 copied',
        'Skipped:',
        '       2  list pages (_index.md: the home page, sections, taxonomies)',
        '       1  Markdown files inside page bundles (resources, not pages)',
        'Warning: site/content/posts/2023/hello-world/index.md: its slug `hello-world` is also ' +
          "site/content/posts/2019/hello-world.md's; written as `hello-world-2023`",
        'Warning: site/content/posts/shortcodes-tour.md:34:1: shortcode `timeline` (`{{< timeline warning >}}`) is ' +
          'neither built in nor mapped, so it is left as text: map it under `markdown.shortcodes` in sync.config.ts, ' +
          'e.g. `timeline: ({ args, named, inner }) => \\`…\\``, returning Markdown or HTML',
        'Warning: front matter `toc` is not imported (1 file): site/content/posts/first-trip/index.en.md:8',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
    expect(await project.files()).toEqual([
      'content/articles/dated-by-name.md',
      'content/articles/draft-idea.md',
      'content/articles/first-trip-es.md',
      'content/articles/first-trip.md',
      'content/articles/hello-world-2023.md',
      'content/articles/hello-world.md',
      'content/articles/no-date.md',
      'content/articles/shortcodes-tour.md',
      'content/categories/guides.md',
      'content/categories/travel-stories.md',
      'content/media/images/diagram.png',
      'content/media/images/logo.png',
      'content/media/posts/2023/hello-world/picture.png',
      'content/media/posts/first-trip/cover.png',
      'content/media/posts/first-trip/map.png',
      'content/pages/about-es.md',
      'content/pages/about.md',
      'content/pages/contact.md',
      'content/users/bob.md',
      'content/users/jane.md',
    ]);

    // A bundle in TOML: its date read with its offset, authors by handle, a figure's alt and caption kept.
    expect(await project.read('content/articles/first-trip.md')).toBe(
      [
        '---',
        'title: Our first trip',
        'date: 2024-03-01T09:00:00.000Z',
        'category: travel-stories',
        'tags:',
        '  - trains',
        '  - spain',
        'authors:',
        '  - jane',
        '  - bob',
        'description: Three days by train',
        '---',
        '',
        'We took the night train.',
        '',
        '<figure><img src="../media/posts/first-trip/cover.png" alt="The train at dawn"><figcaption>Arriving in ' +
          '<em>Madrid</em></figcaption></figure>',
        '',
        'The route is on the map: ![Route map](../media/posts/first-trip/map.png "large")',
        '',
      ].join('\n'),
    );
    // The translation: a record of its own, `<slug>-<lang>`, sharing the bundle's image.
    expect(await project.read('content/articles/first-trip-es.md')).toContain(
      [
        'title: Nuestro primer viaje',
        'slug: first-trip',
        'date: 2024-03-02T09:00:00.000Z',
        'category: travel-stories',
        'author: jane',
        'lang: es',
      ].join('\n'),
    );
    expect(await project.read('content/articles/first-trip-es.md')).toContain(
      '<figure><img src="../media/posts/first-trip/cover.png" alt="El tren al amanecer"></figure>',
    );
    expect(await project.read('content/pages/about-es.md')).toContain('slug: about\n');

    const tour = await project.read('content/articles/shortcodes-tour.md');
    // A date-only value is midnight in the site's timeZone (Europe/Madrid); `Bob Stone` is data/authors' bob.
    expect(tour).toContain(
      'date: 2024-04-01T22:00:00.000Z\ncategory: guides\ntags:\n  - hugo\nauthor: bob\n' +
        'excerpt: Every shortcode this site uses\n',
    );
    expect(tour).toContain(
      '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" title="YouTube video" allowfullscreen></iframe>',
    );
    expect(tour).toContain('<script src="https://gist.github.com/jane/7896402.js"></script>');
    expect(tour).toContain('```go\nfmt.Println("{{ .Title }}")\n```');
    expect(tour).toContain(
      'Read [our first trip](/articles/first-trip/) and [hello](/articles/hello-world/).',
    );
    expect(tour).toContain(
      '<details><summary>More about the diagram</summary>\n\nThe diagram is **simple**.',
    );
    expect(tour).toContain('![Diagram](../media/images/diagram.png)');
    // The old site's own absolute URL is its static file.
    expect(tour).toContain('<figure><img src="../media/images/logo.png" alt="Logo"></figure>');
    expect(tour).toContain('{{< timeline warning >}}\nTrains can be late.\n{{< /timeline >}}');
    expect(tour).toContain('Follow us: @fieldnotes@example.social');

    expect(await project.read('content/articles/dated-by-name.md')).toBe(
      '---\ntitle: Dated by its file name\ndate: 2022-07-03T22:00:00.000Z\n---\n\n' +
        'This file has no date in its front matter.\n',
    );
    expect(await project.read('content/articles/no-date.md')).not.toContain('date:');
    expect(await project.read('content/articles/draft-idea.md')).toContain('draft: true\n');
    expect(await project.read('content/pages/contact.md')).toContain('draft: true\n');
    expect(await project.read('content/articles/hello-world.md')).toContain(
      'date: 2019-05-06T07:30:00.000Z\n',
    );
    expect(await project.read('content/articles/hello-world-2023.md')).toContain(
      '![A picture](../media/posts/2023/hello-world/picture.png)',
    );
    expect(await project.read('content/users/jane.md')).toBe(
      '---\nname: Jane Doe\nemail: jane@example.org\nbio: Writes about trains and maps.\n---\n',
    );
    expect(await project.read('content/categories/travel-stories.md')).toBe(
      '---\nname: Travel Stories\n---\n',
    );
  });

  it('never overwrites content/ without --force, files and images alike', async () => {
    project = await projectWithSite('hugo');
    expect((await runInProcess(project.dir, ['import', 'hugo', 'site'])).code).toBe(0);
    await writeFile(path.join(project.dir, 'content/articles/first-trip.md'), 'edited by hand\n');
    await writeFile(path.join(project.dir, 'content/media/images/logo.png'), 'another logo');

    const again = await runInProcess(project.dir, ['import', 'hugo', 'site']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('  articles        0 written\n');
    expect(again.stdout).toContain('Not overwritten (16 existing files; --force overwrites):\n');
    expect(again.stdout).toContain('  content/media/images/logo.png\n');
    // An image that is already there, byte for byte, is not in the way.
    expect(again.stdout).not.toContain('content/media/images/diagram.png');
    expect(await project.read('content/articles/first-trip.md')).toBe('edited by hand\n');
    expect(await project.read('content/media/images/logo.png')).toBe('another logo');

    const forced = await runInProcess(project.dir, ['import', 'hugo', 'site', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).not.toContain('Not overwritten');
    expect(await project.read('content/articles/first-trip.md')).toContain('title: Our first trip');
    expect(await project.read('content/media/images/logo.png')).not.toBe('another logo');
  });

  it('reads config/_default/, languages without a list, and says so when the folder is no Hugo site', async () => {
    project = await projectWithSite('hugo');
    const site = (file: string) => path.join(project!.dir, 'other', file);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(site('config/_default'), { recursive: true });
    await mkdir(site('content/blog'), { recursive: true });
    await writeFile(site('config/_default/hugo.yaml'), 'baseURL: https://x.example/\n');
    await writeFile(site('config/_default/params.toml'), 'greeting = "Hi"\n');
    await writeFile(
      site('content/blog/note.fr.md'),
      '---\ntitle: Note\ndate: 2024-13-01\ncategories: Travel Stories\n---\n{{< param greeting >}}\n',
    );
    const run = await runInProcess(project.dir, ['import', 'hugo', 'other']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Warning: other/content/blog/note.fr.md:3: `date` `2024-13-01` has no month 13: use ISO 8601',
    );
    expect(await project.read('content/articles/note-fr.md')).toBe(
      '---\ntitle: Note\nslug: note\ncategory: travel-stories\nlang: fr\n---\n\nHi\n',
    );

    const none = await runInProcess(project.dir, ['import', 'hugo', 'content']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'content: no content/ folder and no Markdown found: is this the root of a Hugo site?',
    );
  });
});

describe('import hugo: languages with folders of their own, JSON front matter', () => {
  it('reads each language from its contentDir once, inside content/ or beside it', async () => {
    project = await projectWithSite('hugo');
    await project.site('multi', {
      'config/_default/hugo.toml': 'baseURL = "https://x.example/"\n',
      'config/_default/languages.toml':
        '[en]\ncontentDir = "content/en"\n[fr]\ncontentDir = "content/fr"\n[es]\ncontentDir = "content-es"\n',
      // Hugo's JSON front matter: the file opens with the object.
      'content/en/posts/second.md':
        '{\n  "title": "Second",\n  "date": "2020-01-01",\n  "slug": "second"\n}\nIn English.\n',
      'content/fr/posts/second.md': '---\ntitle: Deuxième\n---\nEn français.\n',
      'content/en/about.md': '+++\ntitle = "About"\n+++\nUs.\n',
      'content-es/about.md': '---\ntitle: Sobre\n---\nNosotros.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'multi']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Warning');
    expect(await project.files()).toEqual([
      'content/articles/second-fr.md',
      'content/articles/second.md',
      'content/pages/about-es.md',
      'content/pages/about.md',
    ]);
    expect(await project.read('content/articles/second.md')).toBe(
      '---\ntitle: Second\ndate: 2020-01-01T00:00:00.000Z\n---\n\nIn English.\n',
    );
    expect(await project.read('content/articles/second-fr.md')).toBe(
      '---\ntitle: Deuxième\nslug: second\nlang: fr\n---\n\nEn français.\n',
    );
  });
});

describe('import hugo: what Hugo never renders', () => {
  it('skips headless bundles and pages built with render: never; an expired page is a draft', async () => {
    project = await projectWithSite('hugo');
    await project.site('quiet', {
      'hugo.toml': 'baseURL = "https://x.example/"\n',
      'content/posts/expired.md': '---\ntitle: Expired\nexpiryDate: 2020-01-01\n---\nGone.\n',
      'content/posts/lasting.md': '---\ntitle: Lasting\nexpirydate: 2999-01-01\n---\nStill here.\n',
      'content/posts/widgets/index.md': '---\ntitle: Widgets\nheadless: true\n---\nParts.\n',
      'content/posts/hidden.md': '---\ntitle: Hidden\n_build:\n  render: never\n---\nNo.\n',
      'content/posts/off.md': '+++\ntitle = "Off"\n[build]\nrender = false\n+++\nNo.\n',
      // Not in lists, but a page of its own all the same.
      'content/posts/listed/index.md':
        '---\ntitle: Unlisted\nbuild:\n  list: never\n---\nYes.{{< comment >}} Never shown.{{< /comment >}}\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'quiet']);
    expect(run.code).toBe(0);
    expect(summary(run.stdout)).toContain(
      [
        'Skipped:',
        '       2  pages Hugo never renders (`build: { render: never }`)',
        '       1  headless bundles (`headless: true`: Hugo renders no page for them)',
        'Warning: quiet/content/posts/expired.md:3: `expiryDate` 2020-01-01 has passed, so the site no longer ' +
          'shows it: imported as a draft',
        'Next: `cms-sync plan` shows what apply would send.',
      ].join('\n'),
    );
    expect(await project.files()).toEqual([
      'content/articles/expired.md',
      'content/articles/lasting.md',
      'content/articles/listed.md',
    ]);
    expect(await project.read('content/articles/expired.md')).toContain('draft: true');
    expect(await project.read('content/articles/lasting.md')).not.toContain('draft');
    expect(await project.read('content/articles/listed.md')).toBe('---\ntitle: Unlisted\n---\n\nYes.\n');
  });
});

describe('import hugo: links in the site', () => {
  it('copies no file a link leads to outside the site, and says which; a link within it is followed', async () => {
    project = await projectWithSite('hugo');
    const { symlink } = await import('node:fs/promises');
    await project.site('linked', {
      'hugo.toml': 'baseURL = "https://x.example/"\n',
      'content/posts/p.md': '---\ntitle: P\n---\n![secret](/img/logo.png) ![fine](/img/alias.png)\n',
      'static/img/real.png': 'an image of the site',
    });
    // A file beside the site, not in it (say ~/.ssh/id_rsa), and links to it and within the site.
    await writeFile(path.join(project.dir, 'secret.png'), 'outside the site');
    const site = path.join(project.dir, 'linked');
    await symlink(path.join(project.dir, 'secret.png'), path.join(site, 'static/img/logo.png'));
    await symlink('real.png', path.join(site, 'static/img/alias.png'));
    const run = await runInProcess(project.dir, ['import', 'hugo', 'linked']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Warning: linked/content/posts/p.md:4: image `/img/logo.png` is linked/static/img/logo.png, a link to a ' +
        'file outside the site; not copied',
    );
    expect(await project.files('content/media')).toEqual(['content/media/img/alias.png']);
    expect(await project.read('content/media/img/alias.png')).toBe('an image of the site');
  });
});

describe('import hugo: a configuration file linked from outside', () => {
  it('is not read: the import stops and names it', async () => {
    project = await projectWithSite('hugo');
    const { symlink } = await import('node:fs/promises');
    await project.site('conf', {
      'config/_default/hugo.toml': 'baseURL = "https://x.example/"\n',
      'content/posts/p.md': '---\ntitle: P\n---\n{{< param token >}}\n',
    });
    await writeFile(path.join(project.dir, 'secrets.toml'), 'token = "not for the CMS"\n');
    await symlink(
      path.join(project.dir, 'secrets.toml'),
      path.join(project.dir, 'conf/config/_default/params.toml'),
    );
    const run = await runInProcess(project.dir, ['import', 'hugo', 'conf']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'conf/config/_default/params.toml: a symbolic link to a file outside the site; not read',
    );
    expect(await project.files().catch(() => [])).toEqual([]);
  });
});

describe('import hugo --link-path', () => {
  it('makes ref and relref to a post or page the pattern (default /{folder}/{slug}/), fragment kept', async () => {
    project = await projectWithSite('hugo');
    const site = (file: string) => path.join(project!.dir, 'tiny', file);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(site('content/posts'), { recursive: true });
    await writeFile(site('hugo.toml'), 'baseURL = "https://x.example/"\n');
    await writeFile(site('content/about.md'), '---\ntitle: About\n---\nHi.\n');
    await writeFile(site('content/posts/b.md'), '---\ntitle: B\n---\nB.\n');
    await writeFile(
      site('content/posts/a.md'),
      '---\ntitle: A\n---\n[b]({{< relref "posts/b.md#part" >}}) [about]({{< ref "about" >}})\n',
    );
    expect((await runInProcess(project.dir, ['import', 'hugo', 'tiny'])).code).toBe(0);
    expect(await project.read('content/articles/a.md')).toContain(
      '[b](/articles/b/#part) [about](/pages/about/)\n',
    );
    const run = await runInProcess(project.dir, [
      'import',
      'hugo',
      'tiny',
      '--force',
      '--link-path',
      '/blog/{slug}/',
    ]);
    expect(run.code).toBe(0);
    expect(await project.read('content/articles/a.md')).toContain(
      '[b](/blog/b/#part) [about](/blog/about/)\n',
    );
  });
});

describe('rewriteUrls', () => {
  const to = (url: string) => (url.startsWith('/') ? `../media${url}` : undefined);

  it('rewrites Markdown, reference-style and HTML images and leaves every other byte alone', () => {
    const source = [
      '# Title with ![x](/a.png) inline',
      '',
      '![alt *text*](</b c.png> "large") and ![kept](https://example.com/x.png)',
      '',
      '![ref][logo] and [a link](/not-an-image.png)',
      '',
      '[logo]: /logo.png "Logo"',
      '',
      "<p><img alt='one' src='/one.png'> <img src=/two.png></p>",
      '',
      '```',
      '![in code](/code.png)',
      '```',
    ].join('\n');
    expect(rewriteUrls(source, { image: to })).toBe(
      [
        '# Title with ![x](../media/a.png) inline',
        '',
        '![alt *text*](<../media/b c.png> "large") and ![kept](https://example.com/x.png)',
        '',
        '![ref][logo] and [a link](/not-an-image.png)',
        '',
        '[logo]: ../media/logo.png "Logo"',
        '',
        '<p><img alt=\'one\' src="../media/one.png"> <img src="../media/two.png"></p>',
        '',
        '```',
        '![in code](/code.png)',
        '```',
      ].join('\n'),
    );
  });

  it('returns text without images as the same string', () => {
    const text = 'No images, only [a link](/x.png).';
    expect(rewriteUrls(text, { image: to })).toBe(text);
  });
});
