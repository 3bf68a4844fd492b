import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The body of a written file, trimmed. */
const body = async (file: string) => bodyOf(await project!.read(file)).trim();

describe("import: Hugo's ref and relref find the page Hugo found", () => {
  it("on a multilingual site, the page in the linking page's language, or the one `lang` names", async () => {
    project = await projectWithSite('hugo');
    await project.site('m', {
      'hugo.toml': 'defaultContentLanguage = "en"\n[languages.en]\nweight = 1\n[languages.fr]\nweight = 2\n',
      // guide.fr.md sorts before guide.md: the name alone would find the French one first.
      'content/posts/guide.fr.md': '---\ntitle: Le guide\ndate: 2024-01-02\n---\nLe guide.\n',
      'content/posts/guide.md': '---\ntitle: Guide\ndate: 2024-01-02\n---\nThe guide.\n',
      'content/posts/start.md': [
        '---',
        'title: Start',
        'date: 2024-01-01',
        '---',
        '[a]({{< ref "guide.md" >}}) [b]({{< relref "/posts/guide" >}}) [c]({{< ref "guide" >}})',
        '[fr]({{< relref path="guide.md" lang="fr" >}}) [name]({{< ref "guide.fr.md#x" >}})',
      ].join('\n'),
      'content/posts/start.fr.md': [
        '---',
        'title: Départ',
        'date: 2024-01-01',
        '---',
        '[a]({{< ref "guide.md" >}}) [b]({{< relref "/posts/guide.md" >}})',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'm']);
    expect(run.code).toBe(0);
    expect(await body('content/articles/start.md')).toBe(
      '[a](/articles/guide/) [b](/articles/guide/) [c](/articles/guide/)\n' +
        '[fr](/articles/guide-fr/) [name](/articles/guide-fr/#x)',
    );
    expect(await body('content/articles/start-fr.md')).toBe(
      '[a](/articles/guide-fr/) [b](/articles/guide-fr/)',
    );
  });

  it('with a content folder per language (content/fr/), in the linking page’s language', async () => {
    project = await projectWithSite('hugo');
    await project.site('d', {
      'hugo.toml': [
        'defaultContentLanguage = "en"',
        '[languages.en]',
        'contentDir = "content/en"',
        '[languages.fr]',
        'contentDir = "content/fr"',
      ].join('\n'),
      'content/en/posts/guide.md': '---\ntitle: Guide\ndate: 2024-01-02\n---\nG.\n',
      'content/fr/posts/guide.md': '---\ntitle: Le guide\ndate: 2024-01-02\n---\nG.\n',
      'content/fr/posts/start.md': '---\ntitle: Départ\ndate: 2024-01-01\n---\n[a]({{< ref "guide.md" >}})\n',
      'content/en/posts/start.md': '---\ntitle: Start\ndate: 2024-01-01\n---\n[a]({{< ref "guide.md" >}})\n',
    });
    expect((await runInProcess(project.dir, ['import', 'hugo', 'd'])).code).toBe(0);
    expect(await body('content/articles/start.md')).toBe('[a](/articles/guide/)');
    expect(await body('content/articles/start-fr.md')).toBe('[a](/articles/guide-fr/)');
  });

  it('a path by its path (from the page first, then from content/), not by its last name', async () => {
    project = await projectWithSite('hugo');
    await project.site('s', {
      'hugo.toml': 'title = "S"\n',
      'content/posts/intro.md': '---\ntitle: Blog intro\ndate: 2024-01-01\n---\nWelcome.\n',
      'content/posts/trip/index.md':
        '---\ntitle: Trip\ndate: 2024-01-01\n---\n[docs]({{< ref "../../docs/intro.md" >}})\n',
      'content/docs/intro.md': [
        '---',
        'title: Docs intro',
        'date: 2023-01-01',
        '---',
        '[blog]({{< ref "/posts/intro.md" >}}) [blog2]({{< relref "posts/intro" >}}) [self]({{< ref "intro" >}})',
        '[up]({{< ref "../posts/intro.md" >}}) [trip]({{< ref "/posts/trip" >}}) [t2]({{< ref "trip" >}})',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 's']);
    expect(run.code).toBe(0);
    // The older docs/intro keeps `intro`; the blog's is written as intro-2024.
    expect(await body('content/articles/intro.md')).toBe(
      '[blog](/articles/intro-2024/) [blog2](/articles/intro-2024/) [self](/articles/intro/)\n' +
        '[up](/articles/intro-2024/) [trip](/articles/trip/) [t2](/articles/trip/)',
    );
    // From a bundle, `../` with an extension is from the bundle's own folder (its file's), as Hugo reads it.
    expect(await body('content/articles/trip.md')).toBe('[docs](/articles/intro/)');
  });

  it('a name two pages share is left as written with a warning naming both, not linked by sort order', async () => {
    project = await projectWithSite('hugo');
    await project.site('a', {
      'hugo.toml': 'title = "A"\n',
      'content/posts/intro.md': '---\ntitle: Blog intro\ndate: 2024-01-01\n---\nWelcome.\n',
      'content/docs/intro.md': '---\ntitle: Docs intro\ndate: 2023-01-01\n---\nDocs.\n',
      'content/about.md': '---\ntitle: About\n---\nSee [the intro]({{< ref "intro.md" >}}).\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'a']);
    expect(run.code).toBe(0);
    expect(await body('content/pages/about.md')).toBe('See [the intro]({{< ref "intro.md" >}}).');
    expect(run.stdout).toContain(
      'Warning: a/content/about.md:4:17: `ref` "intro.md" could be any of a/content/docs/intro.md, ' +
        'a/content/posts/intro.md, so it is left as written: name the page by its path, e.g. "/docs/intro"',
    );
  });
});

describe("import: Jekyll's link and post_url", () => {
  it('`link` is a path from the site root; `post_url` a post in its folder', async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'title: L\n',
      'install.md': '---\ntitle: Install (old root page)\n---\nOld.\n',
      'docs/install.md': '---\ntitle: Install (docs)\n---\nDocs.\n',
      'news/_posts/2024-01-01-same.md': '---\ntitle: News\n---\nN.\n',
      '_posts/2024-01-01-same.md': '---\ntitle: Same\n---\nS.\n',
      '_posts/2024-01-02-linker.md': [
        '---',
        'title: Linker',
        '---',
        '[root]({% link install.md %}) [docs]({% link docs/install.md %}) [slash]({% link /install.md %})',
        '[p]({% post_url 2024-01-01-same %}) [n]({% post_url news/2024-01-01-same %})',
      ].join('\n'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
    expect(run.code).toBe(0);
    // The older (or, on a tie, the first by path) keeps the slug: docs/install.md, _posts/…-same.md.
    expect(await project.read('content/pages/install-2.md')).toContain('title: Install (old root page)');
    expect(await project.read('content/articles/same-2024.md')).toContain('title: News');
    expect(await body('content/articles/linker.md')).toBe(
      '[root](/pages/install-2/) [docs](/pages/install/) [slash](/pages/install-2/)\n' +
        '[p](/articles/same/) [n](/articles/same-2024/)',
    );
  });
});
