import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** Imports one Hugo page with this body, and gives back what was written and its rendered HTML. */
async function imported(body: string): Promise<{ markdown: string; html: string; stdout: string }> {
  project = await projectWithSite('hugo');
  await project.site('s', {
    'hugo.toml': 'baseURL = "https://s.example.com/"\n',
    'content/posts/p.md': `---\ntitle: P\n---\n${body}`,
  });
  const run = await runInProcess(project.dir, ['import', 'hugo', 's']);
  expect(run.stderr).toBe('');
  const markdown = (await project.read('content/articles/p.md')).split('\n---\n')[1]!;
  return { markdown, html: renderMarkdown(markdown, { defaultSize: 'medium' }).html, stdout: run.stdout };
}

describe("import hugo: the themes' shortcodes everyone shares, as the CMS's Markdown has them", () => {
  it("hugo-book's and Relearn's tabs: each tab's title in bold, then its content", async () => {
    const { markdown, html } = await imported(
      [
        '{{< tabs "os" >}}',
        '{{< tab "MacOS" >}} Use **brew**. {{< /tab >}}',
        '{{% tab title="Linux" %}}',
        '- apt',
        '- dnf',
        '{{% /tab %}}',
        '{{< /tabs >}}',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe('\n**MacOS**\n\nUse **brew**.\n\n**Linux**\n\n- apt\n- dnf\n');
    expect(html).toBe(
      '<p><strong>MacOS</strong></p>\n<p>Use <strong>brew</strong>.</p>\n' +
        '<p><strong>Linux</strong></p>\n<ul>\n<li>apt</li>\n<li>dnf</li>\n</ul>',
    );
  });

  it('tabs, a box, an expand and a diagram mid-line: set apart, the text beside them kept out', async () => {
    const { markdown, html } = await imported(
      [
        'Intro {{< tabs >}}{{< tab "A" >}}a one{{< /tab >}}{{< tab "B" >}}b two{{< /tab >}}{{< /tabs >}} after text.',
        'Then {{< hint warning >}}Careful.{{< /hint >}} and on.',
        'Next {{< expand "More" >}}hidden{{< /expand >}} tail.',
        'See {{< mermaid >}}graph LR; A-->B{{< /mermaid >}} below.',
        '',
        '1. Install.',
        '   {{< hint info >}}Needs **root**.{{< /hint >}}',
        '2. Run.',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '',
        'Intro',
        '',
        '**A**',
        '',
        'a one',
        '',
        '**B**',
        '',
        'b two',
        '',
        'after text.',
        'Then',
        '',
        '> **Warning**',
        '>',
        '> Careful.',
        '',
        'and on.',
        'Next',
        '',
        '<details><summary>More</summary>',
        '',
        'hidden',
        '',
        '</details>',
        '',
        'tail.',
        'See',
        '```mermaid',
        'graph LR; A-->B',
        '```',
        'below.',
        '',
        '1. Install.',
        '',
        '   > **Info**',
        '   >',
        '   > Needs **root**.',
        '',
        '2. Run.',
        '',
      ].join('\n'),
    );
    // The text after each is a paragraph of its own, not the end of the last tab, quote or details.
    expect(html).toContain('<p>b two</p>\n<p>after text.\nThen</p>');
    expect(html).toContain(
      '<blockquote>\n<p><strong>Warning</strong></p>\n<p>Careful.</p>\n</blockquote>\n<p>and on.\nNext</p>',
    );
    expect(html).toContain('</details>\n<p>tail.\nSee</p>');
    // A box indented in a list item stays in it.
    expect(html).toContain('<li>\n<p>Install.</p>\n<blockquote>\n<p><strong>Info</strong></p>');
  });

  it("Hextra's tabs take their titles from `items` by order; Docsy's tabpane is code unless text=true", async () => {
    const { markdown } = await imported(
      [
        '{{< tabs items="JSON,YAML" >}}',
        '{{< tab >}}`{}`{{< /tab >}}',
        '{{< tab >}}`a: 1`{{< /tab >}}',
        '{{< /tabs >}}',
        '',
        '{{< tabpane lang="bash" >}}',
        '{{< tab header="Install" >}}npm i x{{< /tab >}}',
        '{{< tab header="Node" lang="js" >}}import x from "x";{{< /tab >}}',
        '{{< /tabpane >}}',
        '',
        '{{< tabpane text=true >}}',
        '{{% tab header="**Languages**:" disabled=true /%}}',
        '{{% tab header="English" %}}Hello *world*.{{% /tab %}}',
        '{{< /tabpane >}}',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '',
        '**JSON**',
        '',
        '`{}`',
        '',
        '**YAML**',
        '',
        '`a: 1`',
        '',
        '**Install**',
        '',
        '```bash',
        'npm i x',
        '```',
        '',
        '**Node**',
        '',
        '```js',
        'import x from "x";',
        '```',
        '',
        '**\\*\\*Languages\\*\\*:**',
        '',
        '**English**',
        '',
        'Hello *world*.',
        '',
      ].join('\n'),
    );
  });

  it('expand, mermaid, rawhtml, a button with an href, columns', async () => {
    const { markdown, html, stdout } = await imported(
      [
        '{{< expand "Read <more>" >}}Hidden **text**.{{< /expand >}}',
        '',
        '{{< mermaid >}}',
        'graph LR; A-->B',
        '{{< /mermaid >}}',
        '',
        '{{< rawhtml >}}<video src="/v.mp4" controls></video>{{< /rawhtml >}}',
        '',
        '{{< button href="https://x.example/go" >}}Go [now]{{< /button >}}',
        '',
        '{{< button relref="/docs" >}}Docs{{< /button >}}',
        '',
        '{{< columns >}}',
        'Left.',
        '<--->',
        'Right.',
        '{{< /columns >}}',
        '',
      ].join('\n'),
    );
    expect(markdown).toBe(
      [
        '',
        '<details><summary>Read &lt;more&gt;</summary>',
        '',
        'Hidden **text**.',
        '',
        '</details>',
        '',
        '```mermaid',
        'graph LR; A-->B',
        '```',
        '',
        '<video src="/v.mp4" controls></video>',
        '',
        '[Go \\[now\\]](<https://x.example/go>)',
        '',
        '{{< button relref="/docs" >}}Docs{{< /button >}}',
        '',
        'Left.',
        '',
        'Right.',
        '',
      ].join('\n'),
    );
    expect(html).toContain(
      '<details><summary>Read &#x3C;more></summary>\n<p>Hidden <strong>text</strong>.</p>\n</details>',
    );
    expect(html).toContain('<pre><code class="language-mermaid">graph LR; A-->B\n</code></pre>');
    expect(html).toContain('<a href="https://x.example/go">Go [now]</a>');
    expect(stdout).toContain('shortcode `button` without an `href`');
  });
});
