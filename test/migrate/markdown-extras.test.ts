import { afterEach, describe, expect, it } from 'vitest';
import { convertExtras } from '../../src/migrate/markdown-extras.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { bodyOf, runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The body of a written file, trimmed. */
const body = async (file: string) => bodyOf(await project!.read(file)).trim();

const ALL = { definitionLists: true, emoji: true, abbreviations: true };

/** What sync publishes for an imported body. */
function published(markdown: string): string {
  return renderMarkdown(markdown, { defaultSize: 'medium' }).html;
}

describe('Markdown a site renderer had and CommonMark has not, converted on import', () => {
  it('a definition list becomes a <dl>, its Markdown rendered, a blank line after it kept', () => {
    const out = convertExtras(
      'Apple\n: A fruit with *seeds*.\n: A company.\n\nOrange\n: Citrus :smile:\n\nAfter.\n',
      ALL,
    );
    expect(out).toMatchObject({ definitionLists: 1, emoji: 1 });
    expect(out.text).toBe(
      '<dl>\n<dt>Apple</dt>\n<dd>A fruit with <em>seeds</em>.\n</dd>\n<dd>A company.\n</dd>\n' +
        '<dt>Orange</dt>\n<dd>Citrus 😄\n</dd>\n</dl>\n\nAfter.\n',
    );
    expect(published(out.text)).toContain('<dt>Apple</dt>');
    expect(published(out.text)).toContain('<p>After.</p>');
  });

  it('a list whose items are apart is one list, nothing after it repeated', () => {
    expect(convertExtras('A\n: a\n\nB\n: b\n\nC\n: c\n\n  more\n\nEnd\n', ALL).text).toBe(
      '<dl>\n<dt>A</dt>\n<dd>a\n</dd>\n<dt>B</dt>\n<dd>b\n</dd>\n<dt>C</dt>\n<dd>c\nmore\n</dd>\n</dl>\n\nEnd\n',
    );
  });

  it('a document with more definition lines than the parser handles in good time is left as typed', () => {
    const body = 'Term\n: def\n\n'.repeat(1001);
    expect(convertExtras(body, ALL)).toMatchObject({
      text: body,
      definitionListsLeft: true,
      definitionLists: 0,
    });
  });

  it('a list in a block quote keeps the quote; a code sample with a blank line stays one block', () => {
    expect(convertExtras('> Term\n> : def one\n\nText\n', ALL).text).toBe(
      '> <dl>\n> <dt>Term</dt>\n> <dd>def one\n> </dd>\n> </dl>\n\nText\n',
    );
    const code = convertExtras('Term\n: ```\n  a\n\n  b\n  ```\n\nNext\n', ALL).text;
    expect(published(code)).toContain('<pre><code>a\n\nb\n</code></pre>');
    expect(published(code)).toContain('<p>Next</p>');
  });

  it('braces in a list stay text for sync, and an image keeps its size as data-size', () => {
    const out = convertExtras('Term\n: {{< youtube x >}} ![pic](/media/x.png "large")\n', ALL).text;
    expect(out).toContain('&#123;&#123;&#x3C; youtube x >}}');
    expect(out).toContain('<img src="/media/x.png" alt="pic" data-size="large">');
    expect(published(out)).toContain('data-type="media" data-size="large"');
  });

  it('emoji by their GitHub names, outside code and URLs; other colons stay', () => {
    const out = convertExtras(
      'At 10:30:45, :+1: :tada: :not_an_emoji: `:smile:` [a :smile:](https://x.example/:smile:)\n\n' +
        '```\n:smile:\n```\n',
      ALL,
    );
    expect(out.text).toBe(
      'At 10:30:45, 👍 🎉 :not_an_emoji: `:smile:` [a 😄](https://x.example/:smile:)\n\n```\n:smile:\n```\n',
    );
    expect(out.emoji).toBe(3);
  });

  it('kramdown abbreviations: definitions removed, each whole-word use an <abbr>, code left', () => {
    const out = convertExtras(
      'The HTML spec, XHTML and HTML5; HTML!\n\n`HTML`\n\n*[HTML]: Hyper Text "Markup" Language\n' +
        '*[W3C]:  World Wide Web Consortium\n',
      ALL,
    );
    expect(out.text).toBe(
      'The <abbr title="Hyper Text &quot;Markup&quot; Language">HTML</abbr> spec, XHTML and HTML5; ' +
        '<abbr title="Hyper Text &quot;Markup&quot; Language">HTML</abbr>!\n\n`HTML`\n\n',
    );
    expect(out.abbreviations).toBe(2);
    // In code, a definition is code.
    expect(convertExtras('```\n*[HTML]: x\nHTML\n```\n', ALL).text).toBe('```\n*[HTML]: x\nHTML\n```\n');
  });

  it('a GitHub-style alert heads its quote with its title, else its type, in bold', () => {
    const out = convertExtras(
      [
        '> [!WARNING]',
        '> Back up your data **first** :tada:.',
        '',
        '> [!note]+ Read *this*',
        '> Folded.',
        '',
        '> [!TIP] :tada:',
        '',
        '> Not [!NOTE] an alert.',
        '',
        '```',
        '> [!NOTE]',
        '```',
      ].join('\n'),
      { alerts: true, emoji: true },
    );
    expect(out.text).toBe(
      [
        '> **Warning**',
        '> Back up your data **first** 🎉.',
        '',
        '> **Read \\*this\\***',
        '> Folded.',
        '',
        '> **:tada:**',
        '',
        '> Not [!NOTE] an alert.',
        '',
        '```',
        '> [!NOTE]',
        '```',
      ].join('\n'),
    );
    expect(out.alerts).toBe(3);
    expect(published(out.text)).toContain('<blockquote>\n<p><strong>Warning</strong>');
  });

  it("typographer 'wordpress': wptexturize's dashes, primes, quotes and ×, code and kept shortcodes as typed", () => {
    const out = convertExtras(
      [
        'It\'s the "best" deal -- open 9-5... Monday---Friday - or not. 3x4 m, 1.5x2, 0x1F, A4x5, 3x4cm.',
        '',
        "A 6' board, a 12\" pipe, \"12\" inches\", the '90s, 'tis true, 'single' quotes, <<no>> (tm) here, xn--bcher.",
        '',
        'Kept: `"code" --x`, \\"escaped\\", \\[contact-form-7 id="42" title="Hi"] and [a "link"](https://x.example/a--b), <https://x.example/c--d...>, https://x.example/e--f.',
        '',
        '```',
        'echo "--flag" ...',
        '```',
      ].join('\n'),
      { typographer: 'wordpress' },
    );
    expect(out.text).toBe(
      [
        'It\u2019s the \u201cbest\u201d deal \u2014 open 9-5\u2026 Monday\u2014Friday \u2013 or not. ' +
          '3\u00d74 m, 1.5\u00d72, 0x1F, A4x5, 3x4cm.',
        '',
        'A 6\u2032 board, a 12\u2033 pipe, \u201c12\u201d inches\u201d, the \u201990s, \u2019tis true, ' +
          '\u2018single\u2019 quotes, <<no>> \u2122 here, xn--bcher.',
        '',
        'Kept: `"code" --x`, \\"escaped\\", \\[contact-form-7 id="42" title="Hi"] and ' +
          '[a \u201clink\u201d](https://x.example/a--b), <https://x.example/c--d...>, https://x.example/e--f.',
        '',
        '```',
        'echo "--flag" ...',
        '```',
      ].join('\n'),
    );
    expect(out.typographer).toBe(21);
  });

  it("typographer 'wordpress': the text of a <kbd> or <tt> as typed, as wptexturize leaves it", () => {
    const out = convertExtras(
      'Press <kbd>Ctrl+"--"</kbd> or <KBD class="k">Alt+\'x\'</KBD>, type <tt>a -- b...</tt>; then "go" -- now.',
      { typographer: 'wordpress' },
    );
    expect(out.text).toBe(
      'Press <kbd>Ctrl+"--"</kbd> or <KBD class="k">Alt+\'x\'</KBD>, type <tt>a -- b...</tt>; then ' +
        '\u201cgo\u201d \u2014 now.',
    );
    expect(out.typographer).toBe(3);
    // Not for the static sites' typographers, which do change the text of inline HTML.
    expect(convertExtras('<kbd>a -- b</kbd>', { typographer: true }).text).toBe('<kbd>a \u2013 b</kbd>');
  });

  it('typographer: dashes, ellipsis, guillemets and curly quotes, as Goldmark and kramdown show them', () => {
    const out = convertExtras(
      [
        'Open 9--5, Monday---Friday. She said "come in" and it\'s warm... << ok >>',
        '',
        "\"**Bold**\" and 'single' quotes, rock 'n' roll, the '90s.",
        '',
        'Kept: `"code" --x`, \\"escaped\\", {{< note title="Hi" >}} and [a "link"](https://x.example/a--b).',
        '',
        '```',
        'echo "--flag"',
        '```',
      ].join('\n'),
      { typographer: true },
    );
    expect(out.text).toBe(
      [
        'Open 9\u20135, Monday\u2014Friday. She said \u201ccome in\u201d and it\u2019s warm\u2026 \u00ab ok \u00bb',
        '',
        '\u201c**Bold**\u201d and \u2018single\u2019 quotes, rock \u2018n\u2019 roll, the \u201890s.',
        '',
        'Kept: `"code" --x`, \\"escaped\\", {{< note title="Hi" >}} and [a \u201clink\u201d](https://x.example/a--b).',
        '',
        '```',
        'echo "--flag"',
        '```',
      ].join('\n'),
    );
  });

  it("kramdown's \\\\ line break becomes CommonMark's, in paragraphs only", () => {
    const out = convertExtras('ACME Ltd\\\\\n12 High Street\\\\\nSpringfield\n\n```\na\\\\\nb\n```\n', {
      backslashBreaks: true,
    });
    expect(out.text).toBe('ACME Ltd\\\n12 High Street\\\nSpringfield\n\n```\na\\\\\nb\n```\n');
    expect(out.lineBreaks).toBe(2);
    expect(published(out.text)).toContain('<p>ACME Ltd<br>\n12 High Street<br>\nSpringfield</p>');
  });

  it('hard wraps: each line break of a paragraph shows, but in code, HTML and breaks already hard', () => {
    const source = [
      'Roses are red', // soft: becomes hard
      'violets `are', // a break inside a code span stays
      'blue` <span', // and inside inline HTML
      'title="x">and</span> here  ', // two spaces: hard already
      'ends\\', // a backslash: hard already
      'last',
      '',
      '> quoted',
      '> lines',
      '',
      '- item',
      '  continued',
      '',
      '```',
      'code',
      'block',
      '```',
      '',
    ].join('\n');
    const out = convertExtras(source, { hardWraps: true });
    expect(out.text).toBe(
      source
        .replace('Roses are red\n', 'Roses are red\\\n')
        .replace('> quoted\n', '> quoted\\\n')
        .replace('- item\n', '- item\\\n'),
    );
    expect(out.lineBreaks).toBe(3);
    const html = published(out.text);
    expect(html).toContain('<p>Roses are red<br>\nviolets <code>are blue</code>');
    expect(html).toContain('<blockquote>\n<p>quoted<br>\nlines</p>');
    expect(html).toContain('<pre><code>code\nblock\n</code></pre>');
    // With kramdown's `\\` made a hard break first, the line is not broken twice.
    const kramdown = convertExtras('a\\\\\nb\nc\n', { hardWraps: true, backslashBreaks: true });
    expect(kramdown.text).toBe('a\\\nb\\\nc\n');
  });

  it('subscript, superscript and mark as the inline HTML the site gave them; ~~strikethrough~~ and code stay', () => {
    const out = convertExtras('H~2~O and CO~2~, ~~struck~~, m^2^ and ==this matters==. `H~2~O` x^y z^', {
      subscript: true,
      superscript: true,
      mark: true,
    });
    expect(out.text).toBe(
      'H<sub>2</sub>O and CO<sub>2</sub>, ~~struck~~, m<sup>2</sup> and <mark>this matters</mark>. `H~2~O` x^y z^',
    );
    expect(out.inlineMarks).toBe(4);
    // Without them (a site whose renderer had none), GFM's strikethrough reads `~2~` as before.
    expect(convertExtras('H~2~O', {}).text).toBe('H~2~O');
  });

  it('only what the site had: each extra is off unless asked for', () => {
    const body = 'Term\n: def :smile:\n\n*[HTML]: x\n';
    expect(convertExtras(body, {}).text).toBe(body);
    expect(convertExtras(body, { emoji: true }).text).toBe('Term\n: def 😄\n\n*[HTML]: x\n');
  });
});

describe('import: each site converts what its renderer had', () => {
  const post =
    '---\ntitle: P\ndate: 2024-01-01\n---\nTerm\n: Its meaning :tada:\n\nHTML rocks.\n\n*[HTML]: HyperText\n';

  it('Hugo: definition lists unless turned off, emoji only with enableEmoji, no abbreviations', async () => {
    project = await projectWithSite('hugo');
    await project.site('on', { 'hugo.toml': 'enableemoji = true\n', 'content/posts/p.md': post });
    await project.site('off', {
      'hugo.toml': '[markup.goldmark.extensions]\ndefinitionList = false\n',
      'content/posts/p.md': post,
    });
    const on = await runInProcess(project.dir, ['import', 'hugo', 'on', '--out', 'a']);
    expect(on.stdout).toContain(
      'Converted as the old site showed them: definition lists x1, emoji shortcodes x1\n',
    );
    expect(await body('a/articles/p.md')).toBe(
      '<dl>\n<dt>Term</dt>\n<dd>Its meaning 🎉\n</dd>\n</dl>\n\nHTML rocks.\n\n*[HTML]: HyperText',
    );
    const off = await runInProcess(project.dir, ['import', 'hugo', 'off', '--out', 'b']);
    expect(off.stdout).not.toContain('Converted');
    expect(await body('b/articles/p.md')).toBe(
      'Term\n: Its meaning :tada:\n\nHTML rocks.\n\n*[HTML]: HyperText',
    );
  });

  it('Jekyll: kramdown lists and abbreviations, jemoji emoji; CommonMark none of them', async () => {
    project = await projectWithSite('jekyll');
    await project.site('k', { '_config.yml': 'plugins: [jemoji]\n', '_posts/2024-01-01-p.md': post });
    await project.site('c', {
      '_config.yml': 'markdown: CommonMarkGhPages\n',
      '_posts/2024-01-01-p.md': post,
    });
    const k = await runInProcess(project.dir, ['import', 'jekyll', 'k', '--out', 'a']);
    expect(k.stdout).toContain(
      'Converted as the old site showed them: definition lists x1, emoji shortcodes x1, abbreviations x1\n',
    );
    expect(await body('a/articles/p.md')).toBe(
      '<dl>\n<dt>Term</dt>\n<dd>Its meaning 🎉\n</dd>\n</dl>\n\n<abbr title="HyperText">HTML</abbr> rocks.',
    );
    await runInProcess(project.dir, ['import', 'jekyll', 'c', '--out', 'b']);
    expect(await body('b/articles/p.md')).toBe(
      'Term\n: Its meaning :tada:\n\nHTML rocks.\n\n*[HTML]: HyperText',
    );
  });

  it('Eleventy: the markdown-it plugins its config or package uses', async () => {
    project = await projectWithSite('jekyll');
    await project.site('e', {
      'eleventy.config.js':
        'import markdownItDeflist from "markdown-it-deflist";\nexport default function () {}\n',
      'package.json': JSON.stringify({ devDependencies: { 'markdown-it-emoji': '^3.0.0' } }),
      'posts/p.md': post,
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'e']);
    expect(run.stdout).toContain(
      'Converted as the old site showed them: definition lists x1, emoji shortcodes x1\n',
    );
    expect(await body('content/articles/p.md')).toContain('*[HTML]: HyperText');
  });

  it("hard wraps where the site had them: Hugo's hardWraps, kramdown's hard_wrap, markdown-it's breaks", async () => {
    const poem = '---\ntitle: P\ndate: 2024-01-01\n---\nRoses are red\nviolets are blue\n';
    const wrapped = 'Roses are red\\\nviolets are blue';
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': '[markup.goldmark.renderer]\nhardWraps = true\n',
      'content/posts/p.md': poem,
    });
    await project.site('h2', { 'hugo.toml': '', 'content/posts/p.md': poem });
    await project.site('j', {
      '_config.yml': 'kramdown:\n  hard_wrap: true\n',
      '_posts/2024-01-01-p.md': poem,
    });
    await project.site('e', {
      'eleventy.config.js':
        'import markdownIt from "markdown-it";\nexport default function (c) {\n' +
        '  c.setLibrary("md", markdownIt({ html: true, breaks: true }));\n}\n',
      'posts/p.md': poem,
    });
    const hugo = await runInProcess(project.dir, ['import', 'hugo', 'h', '--out', 'a']);
    expect(hugo.stdout).toContain('line breaks x1');
    expect(await body('a/articles/p.md')).toBe(wrapped);
    await runInProcess(project.dir, ['import', 'hugo', 'h2', '--out', 'b']);
    expect(await body('b/articles/p.md')).toBe('Roses are red\nviolets are blue');
    await runInProcess(project.dir, ['import', 'jekyll', 'j', '--out', 'c']);
    expect(await body('c/articles/p.md')).toBe(wrapped);
    await runInProcess(project.dir, ['import', 'jekyll', 'e', '--out', 'd']);
    expect(await body('d/articles/p.md')).toBe(wrapped);
  });
});
