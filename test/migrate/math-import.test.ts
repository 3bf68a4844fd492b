import { afterEach, describe, expect, it } from 'vitest';
import { loadMath, renderMarkdown } from '../../src/render/render-markdown.js';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const MATRIX = String.raw`\begin{pmatrix} a & b \\ c & d \end{pmatrix} \quad \|x\| \quad \{1,2\}`;

/** The body of a written file, as sync renders it with `markdown.math`. */
async function published(file: string, singleDollar: boolean): Promise<string> {
  await loadMath();
  const body = file.split('\n---\n').slice(1).join('\n---\n');
  return renderMarkdown(body, { defaultSize: 'medium', math: { singleDollar } }).html;
}

describe('import: math the old site read is written in remark-math’s syntax, its TeX as typed', () => {
  it('Jekyll (kramdown): `$$` inline in a paragraph, display alone; prices and code untouched', async () => {
    project = await projectWithSite('jekyll');
    const post = [
      '---',
      'title: Math',
      '---',
      'Inline $$a*b*c$$ here, for $5 and $10.',
      '',
      '$$',
      MATRIX + ' \\\\',
      String.raw`f'(x) = 2x`,
      '$$',
      '',
      '$$x = 1$$',
      '',
      '`$$code$$` and',
      '',
      '```',
      '$$',
      'not math',
      '$$',
      '```',
      '',
    ].join('\n');
    await project.site('j', { '_config.yml': 'title: J\n', '_posts/2024-01-01-math.md': post });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
    expect(run.code, run.stderr).toBe(0);
    const written = await project.read('content/articles/math.md');
    expect(written).toBe(
      [
        '---',
        'title: Math',
        'date: 2024-01-01T00:00:00.000Z',
        '---',
        '',
        'Inline $$a*b*c$$ here, for $5 and $10.',
        '',
        '$$',
        // kramdown's `\\` line break and its typographer do not apply inside TeX.
        MATRIX + ' \\\\',
        String.raw`f'(x) = 2x`,
        '$$',
        '',
        '$$',
        'x = 1',
        '$$',
        '',
        '`$$code$$` and',
        '',
        '```',
        '$$',
        'not math',
        '$$',
        '```',
        '',
      ].join('\n'),
    );
    // The prices: only `$$` is math, as on the old site.
    expect(run.stdout).toContain(
      'Warning: 3 formulas in 1 document written as math (`$…$`, `$$…$$`, the TeX as typed): set ' +
        '`markdown: { math: { singleDollar: false } }` in sync.config.ts (only `$$` is math then: the lone `$` ' +
        'of 1 document stays a dollar, as on the old site), so that they reach readers as typed rather than ' +
        'through Markdown',
    );
    expect(await published(written, false)).toBe(
      [
        String.raw`<p>Inline <span class="math math-inline">\(a*b*c\)</span> here, for $5 and $10.</p>`,
        `<div class="math math-display">\\[${MATRIX.replaceAll('&', '&#x26;')} \\\\\nf'(x) = 2x\\]</div>`,
        String.raw`<div class="math math-display">\[x = 1\]</div>`,
        '<p><code>$$code$$</code> and</p>',
        '<pre><code>$$\nnot math\n$$\n</code></pre>',
      ].join('\n'),
    );
  });

  it('Jekyll without prices: `markdown: { math: true }`; a CommonMark Jekyll site is left as typed', async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'title: J\n',
      '_posts/2024-01-01-a.md': '---\ntitle: A\n---\n$$x$$\n',
    });
    await project.site('c', {
      '_config.yml': 'title: C\nmarkdown: CommonMark\n',
      '_posts/2024-01-01-b.md': '---\ntitle: B\n---\n$$x = 1$$\n',
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
    expect(run.code, run.stderr).toBe(0);
    expect(await project.read('content/articles/a.md')).toContain('\n$$\nx\n$$\n');
    expect(run.stdout).toContain(
      'Warning: 1 formula in 1 document written as math (`$…$`, `$$…$$`, the TeX as typed): set ' +
        '`markdown: { math: true }` in sync.config.ts, so that',
    );
    const other = await runInProcess(project.dir, ['import', 'jekyll', 'c']);
    expect(other.code, other.stderr).toBe(0);
    expect(await project.read('content/articles/b.md')).toContain('\n$$x = 1$$\n');
    expect(other.stdout).not.toContain('math');
  });

  it('Hugo with Goldmark’s passthrough: its delimiters; code and Liquid-like TeX as typed', async () => {
    project = await projectWithSite('hugo');
    const config = [
      'baseURL = "https://m.example.com/"',
      '[markup.goldmark.extensions.passthrough]',
      '  enable = true',
      '  [markup.goldmark.extensions.passthrough.delimiters]',
      "    block = [['\\[', '\\]'], ['$$', '$$']]",
      "    inline = [['\\(', '\\)']]",
      '',
    ].join('\n');
    const post = [
      '---',
      'title: Math',
      'date: 2024-01-01',
      '---',
      String.raw`Inline \(a*b*c\) here, for $5 and $10.`,
      '',
      String.raw`\[`,
      MATRIX,
      String.raw`\]`,
      '',
      '> $$',
      String.raw`> {{n}\choose{k}}`,
      '> $$',
      '',
      'Code: `\\(x\\)` stays.',
      '',
    ].join('\n');
    await project.site('h', { 'hugo.toml': config, 'content/posts/math.md': post });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code, run.stderr).toBe(0);
    const written = await project.read('content/articles/math.md');
    expect(written.split('\n---\n')[1]).toBe(
      [
        '',
        // Hugo read no `$` as math here: inline math is written with `$$`, which stays math either way.
        'Inline $$a*b*c$$ here, for $5 and $10.',
        '',
        '$$',
        MATRIX,
        '$$',
        '',
        '> $$',
        String.raw`> {{n}\choose{k}}`,
        '> $$',
        '',
        'Code: `\\(x\\)` stays.',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toContain('Warning: 3 formulas in 1 document written as math');
    expect(run.stdout).toContain('`markdown: { math: { singleDollar: false } }`');
    expect(await published(written, false)).toBe(
      [
        String.raw`<p>Inline <span class="math math-inline">\(a*b*c\)</span> here, for $5 and $10.</p>`,
        `<div class="math math-display">\\[${MATRIX.replaceAll('&', '&#x26;')}\\]</div>`,
        '<blockquote>',
        String.raw`<div class="math math-display">\[{{n}\choose{k}}\]</div>`,
        '</blockquote>',
        '<p>Code: <code>\\(x\\)</code> stays.</p>',
      ].join('\n'),
    );
  });

  it('Hugo with `$` inline writes `$…$`; without passthrough, a `math` param is only reported', async () => {
    project = await projectWithSite('hugo');
    const passthrough = [
      'baseURL = "https://d.example.com/"',
      '[markup.goldmark.extensions.passthrough]',
      '  enable = true',
      '  [markup.goldmark.extensions.passthrough.delimiters]',
      "    inline = [['$', '$'], ['\\(', '\\)']]",
      '',
    ].join('\n');
    await project.site('d', {
      'hugo.toml': passthrough,
      'content/posts/d.md': '---\ntitle: D\n---\nBoth $a_1$ and \\(b*c*d\\).\n',
    });
    await project.site('p', {
      'hugo.toml': 'baseURL = "https://p.example.com/"\n[params]\n  math = true\n',
      'content/posts/p.md': '---\ntitle: P\n---\nKept \\(x\\) and $$y$$.\n',
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'd']);
    expect(run.code, run.stderr).toBe(0);
    expect(await project.read('content/articles/d.md')).toContain('\nBoth $a_1$ and $b*c*d$.\n');
    expect(run.stdout).toContain('Warning: 2 formulas in 1 document written as math');
    expect(run.stdout).toContain('set `markdown: { math: true }` in sync.config.ts');

    const params = await runInProcess(project.dir, ['import', 'hugo', 'p']);
    expect(params.code, params.stderr).toBe(0);
    expect(await project.read('content/articles/p.md')).toContain('\nKept \\(x\\) and $$y$$.\n');
    expect(params.stdout).toContain(
      "Warning: the site loads a math renderer (`params.math`) without Goldmark's passthrough, so its formulas",
    );
  });

  it("hugo-book's `{{< katex >}}`: its TeX written as math, inline and display; prices stay dollars", async () => {
    project = await projectWithSite('hugo');
    const integral = String.raw`f(x) = \int_{-\infty}^\infty \hat f(\xi)\,e^{2 \pi i \xi x}\,d\xi`;
    const post = [
      '---',
      'title: K',
      '---',
      String.raw`Inline {{< katex >}}a_1 * b_2 * c_3{{< /katex >}} for $5 or $10 -- then:`,
      '',
      '{{< katex display=true >}}',
      integral,
      '{{< /katex >}}',
      '',
      '{{< katex display >}}x^2{{< /katex >}}',
      '',
      '{{< katex >}}{{< /katex >}}',
      '',
    ].join('\n');
    await project.site('b', {
      'hugo.toml': 'baseURL = "https://b.example.com/"\ntheme = "hugo-book"\n',
      'content/docs/k.md': post,
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'b']);
    expect(run.code, run.stderr).toBe(0);
    const written = await project.read('content/articles/k.md');
    expect(written.split('\n---\n')[1]).toBe(
      [
        '',
        // Goldmark's typographer made `--` a dash in the text, not in the TeX.
        'Inline $$a_1 * b_2 * c_3$$ for $5 or $10 – then:',
        '',
        '$$',
        integral,
        '$$',
        '',
        '$$',
        'x^2',
        '$$',
        '',
        '{{< katex >}}{{< /katex >}}',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toContain('Warning: 3 formulas in 1 document written as math');
    expect(run.stdout).toContain('`markdown: { math: { singleDollar: false } }`');
    expect(run.stdout).toContain('shortcode `katex` holds no TeX here, so it is left as text');
    expect(await published(written, false)).toBe(
      [
        String.raw`<p>Inline <span class="math math-inline">\(a_1 * b_2 * c_3\)</span> for $5 or $10 – then:</p>`,
        `<div class="math math-display">\\[${integral}\\]</div>`,
        String.raw`<div class="math math-display">\[x^2\]</div>`,
        '<p>{{&#x3C; katex >}}{{&#x3C; /katex >}}</p>',
      ].join('\n'),
    );
  });
});
