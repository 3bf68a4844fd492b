import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * A WXR export of one post with this body (published unless `status` says) and postmeta `meta`,
 * then `more` items.
 */
function wxr(content: string, status = 'publish', more = '', meta = ''): string {
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><link>https://blog.example.org</link><wp:wxr_version>1.2</wp:wxr_version>
<item><title>Code</title><dc:creator>admin</dc:creator>
<content:encoded><![CDATA[${content}]]></content:encoded>
<wp:post_id>1</wp:post_id><wp:post_date_gmt>2015-01-02 03:04:05</wp:post_date_gmt><wp:post_name>code</wp:post_name>
<wp:post_date>2015-01-02 04:04:05</wp:post_date><wp:status>${status}</wp:status>
<wp:post_type>post</wp:post_type>${meta}</item>${more}
</channel></rss>`;
}

async function importBody(
  content: string,
  status?: string,
  more?: string,
  meta?: string,
): Promise<{ body: string; stdout: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-wp-code-'));
  await writeFile(path.join(dir, 'export.xml'), wxr(content, status, more, meta));
  const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
  expect(run.code).toBe(0);
  const text = await readFile(path.join(dir, 'content/articles/code.md'), 'utf8');
  return { body: text.slice(text.indexOf('\n---\n', 4) + 5).trim(), stdout: run.stdout };
}

describe('import wordpress: code in syntax-highlighting shortcodes', () => {
  it('[sourcecode], [code] and [python] become fenced blocks, verbatim; wpautop leaves them alone', async () => {
    const { body, stdout } = await importBody(
      [
        'Intro.',
        '',
        '[sourcecode language="python"]',
        'def hello(name):',
        '    if len(name) < 3:',
        '        print("<b>%s</b>" % name)',
        '',
        '    return [i * i for i in range(3)]',
        '[/sourcecode]',
        '',
        '[code lang="js"]const a = 1 &amp;&amp; b &lt; 2;[/code]',
        '',
        '[php]<?php echo "hi"; ?>[/php]',
        '',
        'Outro with [unknown thing].',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        'Intro.',
        '',
        '```python',
        'def hello(name):',
        '    if len(name) < 3:',
        '        print("<b>%s</b>" % name)',
        '',
        '    return [i * i for i in range(3)]',
        '```',
        '',
        '```js',
        'const a = 1 && b < 2;',
        '```',
        '',
        '```php',
        '<?php echo "hi"; ?>',
        '```',
        '',
        'Outro with \\[unknown thing].',
      ].join('\n'),
    );
    expect(stdout).toContain('[unknown] x1');
    expect(stdout).not.toMatch(/\[(?:i|sourcecode|code|php)\] x/);
  });

  it("keeps a code shortcode's <pre>, player URL and entities as the code showed them", async () => {
    const { body, stdout } = await importBody(
      [
        'HTML:',
        '',
        '[code lang="html"]<pre class="note">',
        '  <b>[i]</b> &#91;gallery&#93; &#8220;q&#8221;',
        '</pre>[/code]',
        '',
        '[sourcecode language="text"]',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        '[/sourcecode]',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        'HTML:',
        '',
        '```html',
        '<pre class="note">',
        '  <b>[i]</b> [gallery] \u201cq\u201d',
        '</pre>',
        '```',
        '',
        '```',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        '```',
      ].join('\n'),
    );
    expect(stdout).not.toContain('shortcode');
    expect(stdout).not.toContain('youtube');
  });

  it('never reads brackets in the code of a block-editor code block as a shortcode', async () => {
    const { body, stdout } = await importBody(
      '<!-- wp:code --><pre class="wp-block-code"><code>squares = [i * i for i in range(3)]</code></pre>' +
        '<!-- /wp:code -->',
    );
    expect(body).toBe('```\nsquares = [i * i for i in range(3)]\n```');
    expect(stdout).not.toContain('shortcode');
  });
});

describe('import wordpress: posts the old site did not show', () => {
  it('a scheduled post and one pending review are drafts, each with a report line', async () => {
    const scheduled = await importBody('Soon.', 'future');
    expect(scheduled.stdout).toContain(
      'is scheduled on the old site for 2015-01-02 04:04:05; imported as a draft: publish it when it is due',
    );
    await rm(dir!, { recursive: true, force: true });
    const pending = await importBody('Check me.', 'pending');
    expect(pending.stdout).toContain('is pending review on the old site; imported as a draft');
  });

  it('a scheduled or private post with a password gets a line for each', async () => {
    const password = '<wp:post_password>s3cret</wp:post_password>';
    const scheduled = await importBody('Soon.', 'future', '', password);
    expect(scheduled.stdout).toContain(
      'is scheduled on the old site for 2015-01-02 04:04:05; imported as a draft',
    );
    expect(scheduled.stdout).toContain(
      'post 1 "Code" is password-protected on the old site; imported as a draft',
    );
    await rm(dir!, { recursive: true, force: true });
    const secret = await importBody('Hush.', 'private', '', password);
    expect(secret.stdout).toContain('post 1 "Code" is private on the old site; imported as a draft');
    expect(secret.stdout).toContain(
      'post 1 "Code" is password-protected on the old site; imported as a draft',
    );
  });
});

describe('import wordpress: template syntax in a post is text', () => {
  it('Liquid and Hugo syntax the post shows stay text for sync; the players the importer makes still run', async () => {
    const { body } = await importBody(
      [
        '<p>In Jekyll, write {{ site.baseurl }} before links; in Hugo, {{< youtube id >}} embeds.</p>',
        '',
        'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        'In Jekyll, write &#123;&#123; site.baseurl }} before links; in Hugo, &#123;&#123;< youtube id >}} embeds.',
        '',
        '{{< youtube dQw4w9WgXcQ >}}',
      ].join('\n'),
    );
  });
});

describe('import wordpress: reusable blocks', () => {
  it("puts a reusable block's content where a post uses it, though the block comes later in the export", async () => {
    const block = (id: string, content: string) =>
      `<item><title>Block ${id}</title><content:encoded><![CDATA[${content}]]></content:encoded>` +
      `<wp:post_id>${id}</wp:post_id><wp:status>publish</wp:status><wp:post_type>wp_block</wp:post_type></item>`;
    const { body, stdout } = await importBody(
      [
        '<!-- wp:paragraph --><p>Article text.</p><!-- /wp:paragraph -->',
        '<!-- wp:block {"ref":55} /-->',
        '<!-- wp:block {"ref":99} /-->',
        '<!-- wp:pattern {"slug":"theme/footer"} /-->',
      ].join('\n'),
      'publish',
      block(
        '55',
        '<!-- wp:heading --><h2>Join our newsletter</h2><!-- /wp:heading -->\n' +
          '<!-- wp:paragraph --><p>Get weekly updates.</p><!-- /wp:paragraph -->\n<!-- wp:block {"ref":56} /-->',
      ) + block('56', '<!-- wp:paragraph --><p>Unsubscribe any time.</p><!-- /wp:paragraph -->'),
    );
    expect(body).toBe(
      [
        'Article text.',
        '',
        '## Join our newsletter',
        '',
        'Get weekly updates.',
        '',
        'Unsubscribe any time.',
      ].join('\n'),
    );
    expect(stdout).toContain('reusable block 99 is not in the export; left out');
    expect(stdout).toContain("the theme's pattern `theme/footer` is not in the export; left out");
    expect(stdout).toContain('2  reusable blocks as items (their content is put in the posts that use them)');
  });

  it('shows a reusable block that holds itself once, as WordPress did, and says so', async () => {
    const { body, stdout } = await importBody(
      '<!-- wp:block {"ref":55} /-->',
      'publish',
      '<item><title>Loop</title><content:encoded><![CDATA[<!-- wp:paragraph --><p>Again.</p><!-- /wp:paragraph -->' +
        '<!-- wp:block {"ref":55} /-->]]></content:encoded><wp:post_id>55</wp:post_id><wp:status>publish</wp:status>' +
        '<wp:post_type>wp_block</wp:post_type></item>',
    );
    expect(body).toBe('Again.');
    expect(stdout).toContain(
      'post 1 "Code": reusable block 55 is inside itself (WordPress showed it once); left out',
    );
  });

  it('leaves out a reusable block that is a draft or has a password, as WordPress showed nothing for it', async () => {
    const block = (id: string, status: string, password = '') =>
      `<item><title>Block ${id}</title><content:encoded><![CDATA[<p>Block ${id}.</p>]]></content:encoded>` +
      `<wp:post_id>${id}</wp:post_id><wp:status>${status}</wp:status><wp:post_password>${password}` +
      '</wp:post_password><wp:post_type>wp_block</wp:post_type></item>';
    const { body, stdout } = await importBody(
      '<!-- wp:block {"ref":61} /-->\n<!-- wp:block {"ref":62} /-->\n<!-- wp:block {"ref":63} /-->',
      'publish',
      block('61', 'draft') + block('62', 'publish', 'secret') + block('63', 'publish'),
    );
    expect(body).toBe('Block 63.');
    expect(stdout).toContain(
      'post 1 "Code": reusable block 61 is not published (status `draft`), so the old site showed nothing ' +
        'there; left out',
    );
    expect(stdout).toContain(
      'post 1 "Code": reusable block 62 has a password, so the old site showed nothing there; left out',
    );
  });

  it('reports a block the old site built as it showed the page, which the export holds nothing of', async () => {
    const { body, stdout } = await importBody(
      '<!-- wp:paragraph --><p>Text.</p><!-- /wp:paragraph -->\n<!-- wp:latest-posts {"postsToShow":3} /-->\n' +
        '<!-- wp:archives /-->\n<!-- wp:latest-posts /-->',
    );
    expect(body).toBe('Text.');
    expect(stdout).toContain(
      '2  blocks the old site built as it showed the page: wp:latest-posts: post 1 "Code"',
    );
    expect(stdout).toContain(
      '1  blocks the old site built as it showed the page: wp:archives: post 1 "Code"',
    );
  });
});

describe('import wordpress: page builders', () => {
  it("keeps the text and images of WPBakery and Divi layouts, without the layout's shortcodes", async () => {
    const attachment =
      '<item><title>photo</title><wp:post_id>88</wp:post_id><wp:status>inherit</wp:status>' +
      '<wp:post_type>attachment</wp:post_type><wp:attachment_url>https://blog.example.org/files/photo.jpg' +
      '</wp:attachment_url><wp:postmeta><wp:meta_key>_wp_attachment_image_alt</wp:meta_key>' +
      '<wp:meta_value>The harbour</wp:meta_value></wp:postmeta></item>';
    const { body, stdout } = await importBody(
      [
        '[vc_row][vc_column width="1/2"][vc_column_text]',
        'First <strong>column</strong> text.',
        '[/vc_column_text][/vc_column][vc_column width="1/2"][vc_single_image image="88" img_size="large"]',
        '[vc_empty_space][/vc_column][/vc_row]',
        '[et_pb_section][et_pb_row][et_pb_column type="4_4"][et_pb_text]Divi text.[/et_pb_text]',
        '[et_pb_image src="https://blog.example.org/files/divi.png" alt="Divi"][/et_pb_image]',
        '[/et_pb_column][/et_pb_row][/et_pb_section]',
      ].join('\n'),
      'publish',
      attachment,
    );
    expect(body).toBe(
      [
        'First **column** text.',
        '',
        '![The harbour](https://blog.example.org/files/photo.jpg)',
        '',
        'Divi text.',
        '',
        '![Divi](https://blog.example.org/files/divi.png)',
      ].join('\n'),
    );
    expect(stdout).not.toContain('unknown shortcode');
    expect(stdout).toContain('page-builder layout shortcodes (WPBakery, Divi, Avada, Enfold)');
  });

  it('keeps the headings, buttons and raw HTML of page builders, and reports what it cannot keep', async () => {
    // WPBakery keeps raw HTML URL-encoded, in base64: a widget's placeholder and its script, kept whole.
    const widget = '<div class="widget" data-id="7"></div>\n<script src="https://w.example/w.js"></script>';
    const raw = Buffer.from(encodeURIComponent(widget)).toString('base64');
    const { body, stdout } = await importBody(
      [
        '[vc_row][vc_column][vc_custom_heading text="Our team" font_container="tag:h3|text_align:left"]',
        '[vc_btn title="Contact us" link="url:https%3A%2F%2Fblog.example.org%2Fcontact|title:Contact"]',
        `[vc_raw_html]${raw}[/vc_raw_html][vc_single_image image="404"][vc_gmaps link="#E-8_x"]`,
        '[vc_empty_space][/vc_column][/vc_row]',
        '[et_pb_section][et_pb_row][et_pb_column][et_pb_button button_text="Buy" button_url="https://shop.example.org/"]',
        '[/et_pb_column][/et_pb_row][/et_pb_section]',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        '### Our team',
        '',
        '[Contact us](https://blog.example.org/contact)',
        '',
        widget,
        '',
        '[Buy](https://shop.example.org/)',
      ].join('\n'),
    );
    expect(stdout).toContain('1  page-builder images whose attachment is not in the export: post 1 "Code"');
    expect(stdout).toContain('1  page-builder [vc_gmaps] elements, which have no form here: post 1 "Code"');
    expect(stdout).toMatch(/raw HTML elements \(WPBakery \[vc_raw_html\]\)/);
  });
});

describe('import wordpress: footnotes of the block editor', () => {
  it('makes the notes kept in the post meta Markdown footnotes, numbered as the post shows them', async () => {
    const { body } = await importBody(
      [
        '<!-- wp:paragraph --><p>A claim.<sup data-fn="4f2e-a1" class="fn"><a href="#4f2e-a1" id="4f2e-a1-link">1</a>',
        '</sup> Another.<sup data-fn="b7" class="fn"><a href="#b7" id="b7-link">2</a></sup></p><!-- /wp:paragraph -->',
        '<!-- wp:footnotes /-->',
      ].join(''),
      'publish',
      '',
      '<wp:postmeta><wp:meta_key>footnotes</wp:meta_key><wp:meta_value><![CDATA[' +
        '[{"content":"Smith, <em>Sources</em>, 2021.","id":"4f2e-a1"},{"content":"Jones.","id":"b7"}]' +
        ']]></wp:meta_value></wp:postmeta>',
    );
    expect(body).toBe('A claim.[^1] Another.[^2]\n\n[^1]: Smith, _Sources_, 2021.\n\n[^2]: Jones.');
  });

  it('keeps the number of a reference whose note the export lacks, without its dead link, and says so', async () => {
    const { body, stdout } = await importBody(
      '<!-- wp:paragraph --><p>A claim.<sup data-fn="4f2e-a1" class="fn"><a href="#4f2e-a1" id="4f2e-a1-link">1</a>' +
        '</sup></p><!-- /wp:paragraph --><!-- wp:footnotes /-->',
    );
    expect(body).toBe('A claim.<sup>1</sup>');
    expect(stdout).toContain(
      'post 1 "Code": the export has no text for 1 footnote(s) (post meta `footnotes`); numbers kept',
    );
  });
});

describe('import wordpress: co-authors and the primary category', () => {
  it("writes Co-Authors Plus's authors in order, and Yoast's primary category as the category", async () => {
    const category = (id: string, slug: string, name: string) =>
      `<wp:category><wp:term_id>${id}</wp:term_id><wp:category_nicename>${slug}</wp:category_nicename>` +
      `<wp:category_parent></wp:category_parent><wp:cat_name>${name}</wp:cat_name></wp:category>`;
    dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-wp-authors-'));
    const terms =
      '<category domain="category" nicename="local">Local</category>' +
      '<category domain="category" nicename="news">News</category>' +
      '<category domain="author" nicename="cap-bob">bob</category>' +
      '<category domain="author" nicename="cap-admin">admin</category>' +
      '<wp:postmeta><wp:meta_key>_yoast_wpseo_primary_category</wp:meta_key><wp:meta_value>2</wp:meta_value>' +
      '</wp:postmeta>';
    await writeFile(
      path.join(dir, 'export.xml'),
      wxr('<p>Text.</p>', 'publish', category('2', 'news', 'News') + category('3', 'local', 'Local'), terms),
    );
    const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
    expect(run.code).toBe(0);
    const text = await readFile(path.join(dir, 'content/articles/code.md'), 'utf8');
    expect(text).toContain('category: news\ntags:\n  - local\n');
    expect(text).toContain('authors:\n  - bob\n  - admin\n');
    expect(run.stdout).not.toContain('other taxonomies');
  });
});

describe('import wordpress: an escaped code shortcode', () => {
  it('is shown as the shortcode, not made code, through every pass', async () => {
    const { body } = await importBody('<p>Write [[php]echo 1;[/php]] to show PHP.</p>');
    expect(body).toBe('Write \\[php]echo 1;\\[/php] to show PHP.');
  });
});

describe('import wordpress: smilies', () => {
  it('become the emoji WordPress showed, only between spaces or at the ends of a text, never in code', async () => {
    const { body, stdout } = await importBody(
      [
        'Thanks :) and ;-) and :mrgreen: and <strong>bold</strong>:D',
        '',
        'Not these: f(:x), 10:30, Hi!:) and <code>:)</code>',
        '',
        '<pre>x = y ? a :P</pre>',
        '',
        'Last one :idea:',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        'Thanks 🙂 and 😉 and :mrgreen: and **bold**😀',
        '',
        'Not these: f(:x), 10:30, Hi!:) and `:)`',
        '',
        '```',
        'x = y ? a :P',
        '```',
        '',
        'Last one 💡',
      ].join('\n'),
    );
    expect(stdout).toContain('Converted as the old site showed them: smilies x4');
  });
});

describe('import wordpress: Verse and Preformatted blocks', () => {
  it('keep their links, bold, italics and lines as HTML; a Code block stays code', async () => {
    const { body } = await importBody(
      [
        '<!-- wp:verse -->',
        '<pre class="wp-block-verse">The <em>woods</em> are lovely, dark and deep,',
        '   But I have promises to keep.',
        '         — <a href="https://en.wikipedia.org/wiki/Robert_Frost">Robert Frost</a></pre>',
        '<!-- /wp:verse -->',
        '',
        '<!-- wp:preformatted -->',
        '<pre class="wp-block-preformatted">Mon–Fri   <strong>9:00–17:00</strong>',
        'Bookings: <a href="https://example.com/book">example.com/book</a></pre>',
        '<!-- /wp:preformatted -->',
        '',
        '<!-- wp:code -->',
        '<pre class="wp-block-code"><code>let a = 1;</code></pre>',
        '<!-- /wp:code -->',
      ].join('\n'),
    );
    expect(body).toBe(
      [
        '<pre class="wp-block-verse">The <em>woods</em> are lovely, dark and deep,',
        '   But I have promises to keep.',
        '         — <a href="https://en.wikipedia.org/wiki/Robert_Frost">Robert Frost</a></pre>',
        '',
        '<pre class="wp-block-preformatted">Mon–Fri   <strong>9:00–17:00</strong>',
        'Bookings: <a href="https://example.com/book">example.com/book</a></pre>',
        '',
        '```',
        'let a = 1;',
        '```',
      ].join('\n'),
    );
  });
});
