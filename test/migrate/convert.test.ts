import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../src/migrate/html-to-markdown.js';
import { expandShortcodes, parseAttributes } from '../../src/migrate/shortcodes.js';
import { decodeSlug } from '../../src/migrate/slug.js';
import { serializeDocument } from '../../src/migrate/write-content.js';
import { stripBlockComments, wpautop } from '../../src/migrate/wpautop.js';
import { readXmlItems } from '../../src/migrate/xml-items.js';

const noAttachments = {
  attachmentUrl: () => undefined,
  childAttachments: () => [],
  onUnknown: () => {},
  onDropped: () => {},
};

describe('wpautop', () => {
  it('makes paragraphs of blank lines and <br /> of single newlines, leaving blocks and <pre> alone', () => {
    expect(wpautop('One\ntwo\n\nThree\n<ul>\n<li>a</li>\n</ul>\n<pre>x\n\ny</pre>')).toBe(
      '<p>One<br />\ntwo</p>\n<p>Three</p>\n<ul>\n<li>a</li>\n</ul>\n<pre>x\n\ny</pre>\n',
    );
  });
});

describe('shortcodes', () => {
  it('parses attributes the way WordPress does', () => {
    expect(parseAttributes(` id="5" title='A "b"' width=300 bare`)).toEqual({
      id: '5',
      title: 'A "b"',
      width: '300',
      '0': 'bare',
    });
  });

  it('keeps unknown ones verbatim and counts them; [[escaped]] ones lose a bracket pair only', () => {
    const seen: string[] = [];
    const out = expandShortcodes('[foo a="1"]inner [embed]https://x.test/v[/embed][/foo] [[bar]]', {
      ...noAttachments,
      onUnknown: (n) => seen.push(n),
    });
    expect(out).toBe(
      '[foo a="1"]inner \n\n<p><a href="https://x.test/v">https://x.test/v</a></p>\n\n[/foo] [bar]',
    );
    expect(seen).toEqual(['foo']);
  });

  it('drops gallery ids it cannot resolve and says so', () => {
    const dropped: string[] = [];
    const out = expandShortcodes('[gallery ids="1,2"]', {
      ...noAttachments,
      attachmentUrl: (id) => (id === '1' ? 'https://x.test/1.png' : undefined),
      onDropped: (w) => dropped.push(w),
    });
    expect(out).toBe('\n\n<ul><li><img src="https://x.test/1.png" alt=""></li></ul>\n\n');
    expect(dropped).toEqual(['gallery image 2 (no attachment with that id in the export)']);
  });
});

describe('htmlToMarkdown', () => {
  it('turns dynamic-blocks into cms-media images with their size', () => {
    expect(
      htmlToMarkdown(
        '<p>A</p><dynamic-block data-id="7" data-type="media" data-size="small" ' +
          'contenteditable="false"></dynamic-block>',
      ),
    ).toBe('A\n\n![](cms-media:7 "small")\n');
  });

  it('drops block-editor comments and keeps their content', () => {
    expect(
      htmlToMarkdown(
        stripBlockComments(
          '<!-- wp:heading {"level":3} --><h3>Title</h3><!-- /wp:heading --><!-- wp:quote ' +
            '--><blockquote><p>Q</p></blockquote><!-- /wp:quote -->',
        ),
      ),
    ).toBe('### Title\n\n> Q\n');
  });

  it(
    'resolves relative links and images, unwraps links to the image file, and writes unresolvable images as ' +
      'links',
    () => {
      const relative: string[] = [];
      const md = htmlToMarkdown(
        '<p><a href="/u/a.jpg"><img src="/u/a.jpg" alt="A"></a> <img src="rel.png"></p>',
        {
          resolveUrl: (u) => (u.startsWith('/') ? `https://old.test${u}` : u),
          onRelativeImage: (s) => relative.push(s),
        },
      );
      expect(md).toBe('![A](https://old.test/u/a.jpg) [rel.png](rel.png)\n');
      expect(relative).toEqual(['rel.png']);
    },
  );
});

describe('slugs and front matter', () => {
  it('decodes percent-encoded slugs to NFC', () => {
    expect(decodeSlug('caf%c3%a9')).toBe('café');
    expect(decodeSlug('cafe\u0301')).toBe('café');
    expect(decodeSlug('100%-sure')).toBe('100%-sure');
  });

  it('quotes YAML that would otherwise change meaning', () => {
    expect(serializeDocument({ title: 'Q: "a" # b', n: '007', yes: 'yes', skip: undefined }, 'Body')).toBe(
      `---\ntitle: 'Q: "a" # b'\n'n': '007'\n'yes': 'yes'\n---\n\nBody\n`,
    );
  });
});

describe('readXmlItems', () => {
  it(
    'finds items across any chunk boundary, skipping </item> inside CDATA and comments, with their line and ' +
      'column',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-xml-'));
      const file = path.join(dir, 'x.xml');
      const xml =
        '<rss><channel>\n<title>T</title>\n  <item><a><![CDATA[</item>]]></a><!-- </item> ' +
        '--></item>\n<item>\n<b/></item>\n</channel></rss>\n';
      await writeFile(file, xml);
      try {
        for (const chunkSize of [1, 3, 7, 64]) {
          const scan = { skeleton: '' };
          const items = [];
          for await (const item of readXmlItems(file, scan, { chunkSize })) items.push(item);
          expect(items).toEqual([
            { text: '<item><a><![CDATA[</item>]]></a><!-- </item> --></item>', line: 3, column: 3 },
            { text: '<item>\n<b/></item>', line: 4, column: 1 },
          ]);
          expect(scan.skeleton).toBe('<rss><channel>\n<title>T</title>\n  \n\n\n</channel></rss>\n');
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('htmlToMarkdown: tables', () => {
  const table = (head: string, body: string) =>
    `<table><thead><tr>${head}</tr></thead><tbody><tr>${body}</tr></tbody></table>`;

  it('a table with a header row and one line per cell becomes a pipe table', () => {
    expect(
      htmlToMarkdown(table('<th>Plan</th><th>Price</th>', '<td><strong>Basic</strong></td><td>$5</td>')),
    ).toBe('| Plan      | Price |\n| --------- | ----- |\n| **Basic** | $5    |\n');
  });

  it('a list, a line break or a second paragraph in a cell, a span, or no header row: kept as HTML', () => {
    for (const html of [
      table('<th>Plan</th><th>Includes</th>', '<td>Basic</td><td><ul><li>5 GB</li><li>Email</li></ul></td>'),
      table('<th>Plan</th><th>Includes</th>', '<td>Basic<br>for one</td><td>5 GB</td>'),
      table('<th>Plan</th><th>Includes</th>', '<td><p>One.</p><p>Two.</p></td><td>5 GB</td>'),
      table('<th colspan="2">Plans</th>', '<td>Basic</td><td>5 GB</td>'),
      '<table><tr><td>Plan</td><td>Price</td></tr><tr><td>Basic</td><td>$5</td></tr></table>',
    ]) {
      const markdown = htmlToMarkdown(html);
      expect(markdown).toMatch(/^<table>/);
      expect(markdown).not.toContain('| ');
    }
  });
});

describe('htmlToMarkdown: old-style anchors', () => {
  it('keeps <a name> as HTML, the jump target of the post’s own links, not an empty link', () => {
    expect(htmlToMarkdown('<p><a href="#faq">FAQ</a></p><h2><a name="faq"></a>FAQ</h2>')).toBe(
      '[FAQ](#faq)\n\n## <a name="faq"></a>FAQ\n',
    );
  });
});

describe('htmlToMarkdown: forms', () => {
  it('drops a form’s fields and keeps its text: an email field is no mailto: link', () => {
    expect(
      htmlToMarkdown(
        '<form><p>Join us</p><input type="email" placeholder="Your email" value="you@example.com">' +
          '<button>Subscribe</button></form>',
      ),
    ).toBe('Join us\n\nSubscribe\n');
  });
});

describe('htmlToMarkdown: bare URLs', () => {
  it('a URL with characters Markdown escapes becomes an autolink, so its link keeps them; others stay text', () => {
    expect(
      htmlToMarkdown(
        '<p>See https://en.wikipedia.org/wiki/Python_(programming_language). Also (https://x.example/a_b), ' +
          'https://plain.example/a and <code>https://z.example/e_f</code>.</p>',
      ),
    ).toBe(
      'See <https://en.wikipedia.org/wiki/Python_(programming_language)>. Also (<https://x.example/a_b>), ' +
        'https://plain.example/a and `https://z.example/e_f`.\n',
    );
  });
});

describe('htmlToMarkdown: a thumbnail linked to its full size', () => {
  it('uploads the full size (the CMS makes its own smaller ones); a link to another image is dropped', () => {
    const up = 'https://blog.example/wp-content/uploads/2020/01';
    expect(
      htmlToMarkdown(
        `<p><a href="${up}/dog.jpg"><img class="size-medium" src="${up}/dog-300x200.jpg" alt="A dog"></a></p>` +
          `<p><a href="${up}/big.JPG?x=1"><img src="${up}/big-scaled.jpg" alt="Big"></a></p>` +
          `<p><a href="${up}/other.jpg"><img src="${up}/dog-300x200.jpg" alt="Not the same"></a></p>`,
      ),
    ).toBe(
      `![A dog](${up}/dog.jpg "medium")\n\n![Big](${up}/big.JPG?x=1)\n\n![Not the same](${up}/dog-300x200.jpg)\n`,
    );
  });
});

describe('htmlToMarkdown: <pre> that is text to read', () => {
  it('keeps a <pre> with links, bold or italics, and any Verse block, as HTML with its markup and lines', () => {
    expect(
      htmlToMarkdown(
        '<p>Our address:</p><pre>Bakery &amp; Co.\n12 Mill Lane\n<a href="/map">Show on the map</a></pre>',
        { resolveUrl: (u) => (u.startsWith('/') ? `https://old.test${u}` : u) },
      ),
    ).toBe(
      'Our address:\n\n<pre>Bakery &#x26; Co.\n12 Mill Lane\n<a href="https://old.test/map">Show on the map</a></pre>\n',
    );
    expect(
      htmlToMarkdown('<pre class="wp-block-verse">The <em>woods</em> are lovely,\n\n   dark and deep.</pre>'),
    ).toBe('<pre class="wp-block-verse">The <em>woods</em> are lovely,\n&#10;   dark and deep.</pre>\n');
    expect(htmlToMarkdown('<pre class="wp-block-verse">Whose woods these are\nI think I know.</pre>')).toBe(
      '<pre class="wp-block-verse">Whose woods these are\nI think I know.</pre>\n',
    );
  });

  it('keeps the lines of such a <pre> beside text in a list item', () => {
    expect(
      htmlToMarkdown(
        '<ul><li>Address: <b>us</b><pre>12 Mill\n<a href="https://x.test">map</a>\n- not a list</pre></li></ul>',
      ),
    ).toBe('- Address: **us**\n  <pre>12 Mill&#10;<a href="https://x.test">map</a>&#10;- not a list</pre>\n');
  });

  it('a <pre> of plain text, a Code block and code holding markup stay fenced code blocks', () => {
    expect(htmlToMarkdown('<pre>Mon–Fri  9:00\nSat      closed</pre>')).toBe(
      '```\nMon–Fri  9:00\nSat      closed\n```\n',
    );
    expect(htmlToMarkdown('<pre class="wp-block-code"><code>if (a &lt; b) <b>return</b>;</code></pre>')).toBe(
      '```\nif (a < b) return;\n```\n',
    );
    expect(htmlToMarkdown('<pre><code>say <a href="https://x.test">hi</a></code></pre>')).toBe(
      '```\nsay hi\n```\n',
    );
  });
});

describe('htmlToMarkdown: lists numbered as Markdown cannot say', () => {
  it('keeps a countdown, letters and Roman numerals as HTML, its links resolved', () => {
    const resolveUrl = (u: string) => (u.startsWith('/') ? `https://old.test${u}` : u);
    for (const [html, expected] of [
      ['<ol reversed>\n<li>C</li>\n\n<li>B</li>\n</ol>', '<ol reversed><li>C</li><li>B</li></ol>\n'],
      [
        '<ol reversed start="5"><li>Five</li><li>Four</li></ol>',
        '<ol reversed start="5"><li>Five</li><li>Four</li></ol>\n',
      ],
      [
        '<ol type="i"><li><a href="/a">Unplug</a></li></ol>',
        '<ol type="i"><li><a href="https://old.test/a">Unplug</a></li></ol>\n',
      ],
      ['<ol type="A"><li>Paris</li></ol>', '<ol type="A"><li>Paris</li></ol>\n'],
      [
        '<ol style="list-style-type: upper-alpha"><li>Paris</li></ol>',
        '<ol style="list-style-type: upper-alpha"><li>Paris</li></ol>\n',
      ],
      [
        '<ul><li>Top<ol type="a"><li>one</li><li>two</li></ol></li></ul>',
        '- Top\n  <ol type="a"><li>one</li><li>two</li></ol>\n',
      ],
    ])
      expect(htmlToMarkdown(html!, { resolveUrl })).toBe(expected);
  });

  it('keeps a list nested in such a list inside the outer one’s HTML, once', () => {
    const depth = 150;
    const markdown = htmlToMarkdown('<ol reversed><li>x'.repeat(depth) + '</li></ol>'.repeat(depth));
    expect(markdown).toBe('<ol reversed><li>x'.repeat(depth) + '</li></ol>'.repeat(depth) + '\n');
  });

  it('a list numbered upward in digits stays Markdown, from its start', () => {
    expect(htmlToMarkdown('<ol start="5"><li>Five</li><li>Six</li></ol>')).toBe('5. Five\n6. Six\n');
    expect(htmlToMarkdown('<ol type="1" style="list-style: decimal inside"><li>One</li></ol>')).toBe(
      '1. One\n',
    );
  });
});

describe('htmlToMarkdown: many blocks kept as HTML side by side', () => {
  // Each was looked past at every next sibling (a quadratic walk: 3,000 took half a minute, 5,000 past the time limit);
  // now it is one step each, well inside the test's time limit.
  it('converts 5,000 adjacent tables and countdowns, each one block', () => {
    const html =
      '<table><tr><td>a</td></tr></table>'.repeat(2500) + '<ol reversed><li>x</li></ol>'.repeat(2500);
    const markdown = htmlToMarkdown(html);
    expect(markdown.match(/^<table>/gm)).toHaveLength(2500);
    expect(markdown.match(/^<ol reversed>/gm)).toHaveLength(2500);
  });
});

describe('htmlToMarkdown: a quote and its source', () => {
  it('sets the <cite> of a quote apart by a dash; a <cite> in running text is its text', () => {
    expect(
      htmlToMarkdown(
        '<blockquote class="wp-block-quote"><p>To be, or not to be.</p><cite>Hamlet, <em>Act III</em></cite>' +
          '</blockquote><p>As <cite>The Times</cite> wrote.</p>',
      ),
    ).toBe('> To be, or not to be.\n>\n> — Hamlet, _Act III_\n\nAs The Times wrote.\n');
  });
});

describe("htmlToMarkdown: a File block's download button", () => {
  it('is left out when it repeats the file link, and kept apart by a space when it leads elsewhere', () => {
    const block = (button: string) =>
      '<div class="wp-block-file"><a id="wp-block-file--media-1" href="https://x.example/r.pdf">Annual report</a>' +
      `<a href="${button}" class="wp-block-file__button wp-element-button" download>Download</a></div>`;
    expect(htmlToMarkdown(block('https://x.example/r.pdf'))).toBe(
      '[Annual report](https://x.example/r.pdf)\n',
    );
    expect(htmlToMarkdown(block('https://x.example/r.zip'))).toBe(
      '[Annual report](https://x.example/r.pdf) [Download](https://x.example/r.zip)\n',
    );
  });
});
