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
