// Imports a generated input for each importer (WordPress WXR, Ghost JSON, a Hugo site, a Jekyll
// site) and prints items/s and peak memory (RSS) of each. The WXR holds newsroom posts of 5 to 10
// KiB of HTML with categories, tags, attachments, comments and links between posts.
//   node bench/import.mjs                        5,000 posts each, every importer
//   node bench/import.mjs --items 50000
//   node bench/import.mjs --only hugo,jekyll
//   node bench/import.mjs --only wordpress --items 5000,50000
//                                                the WXR row at both sizes: peak RSS must not grow
//                                                with the export (50,000 posts take minutes)
// Needs `npm run build` first. Each importer runs in a process of its own (this script again,
// with one `--only`), running the built CLI from dist/ in that process, so process.memoryUsage().rss
// sampled every 20 ms covers that import alone.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { machine } from './lib.mjs';

const IMPORTERS = ['wordpress', 'ghost', 'hugo', 'jekyll'];
const args = process.argv.slice(2);
const itemsArg = args.indexOf('--items');
const SIZES =
  itemsArg >= 0
    ? String(args[itemsArg + 1])
        .split(',')
        .map(Number)
    : [5000];
for (const size of SIZES) {
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`Expected \`--items\` to list integers >= 1, got \`${args[itemsArg + 1]}\``);
}
const [ITEMS] = SIZES;
const onlyArg = args.indexOf('--only');
const ONLY = onlyArg >= 0 ? String(args[onlyArg + 1]).split(',') : IMPORTERS;
for (const name of ONLY) {
  if (!IMPORTERS.includes(name))
    throw new Error(`Expected \`--only\` to list ${IMPORTERS.join(', ')}, got \`${name}\``);
}

if (ONLY.length > 1 || SIZES.length > 1) {
  console.log(`cms-sync import bench: ${machine()}`);
  for (const [name, items] of ONLY.flatMap((name) => SIZES.map((items) => [name, items]))) {
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        '--only',
        name,
        '--items',
        String(items),
        '--quiet',
      ],
      { stdio: 'inherit' },
    );
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
  process.exit(0);
}

const PARAGRAPH =
  'The river rose <strong>two metres</strong> overnight & residents were told to stay home; the café on Main Street ' +
  'stayed open.\nA second line of the same paragraph.';

const HTML_PARAGRAPH =
  '<p>The council met on Tuesday to discuss the <strong>budget</strong> for the coming year, with members divided ' +
  'over <a href="https://example.com/transport">transport</a> spending and the future of the river crossing. ' +
  'Residents &amp; shop owners <em>packed</em> the public gallery.</p>\n';

/**
 * A newsroom post of 5 to 10 KiB of HTML: paragraphs, a heading, a list, a quote, a captioned
 * image of its own attachment, an embed, and links to two other posts (by permalink and by `?p=`).
 */
function postBody(i, items) {
  // Another post (not an attachment: every tenth item is one).
  const target = (n) => {
    const j = ((i * n) % items) + 1;
    return j % 10 === 0 ? j - 1 : j;
  };
  const parts = [
    HTML_PARAGRAPH.repeat(4),
    PARAGRAPH,
    `[caption id="attachment_${i - (i % 10)}" width="300"]<img src="/uploads/${i - (i % 10)}.png" alt="" ` +
      `class="wp-image-${i - (i % 10)} size-medium" /> Caption ${i}[/caption]`,
    `<h2>What happens next in story ${i}</h2>`,
    HTML_PARAGRAPH,
    `<p>Read <a href="https://bench.example.com/2024/01/post-${target(7)}/">the earlier report</a> and ` +
      `<a href="https://bench.example.com/?p=${target(13)}">the follow-up</a>.</p>`,
    '<ul><li>first point</li><li>second point, with <a href="https://example.com/more">more</a></li></ul>',
    `<blockquote><p>A quote from someone involved in story ${i}.</p></blockquote>`,
    i % 7 === 0 ? '[gallery]' : `[embed]https://video.example.com/${i}[/embed]`,
    HTML_PARAGRAPH.repeat(8 + (i % 12)),
  ];
  return parts.join('\n\n');
}

/** Writes the export item by item, so generating it takes no memory to speak of. */
async function generate(file, items) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<title>Bench</title><link>https://bench.example.com</link><wp:wxr_version>1.2</wp:wxr_version>
<wp:base_blog_url>https://bench.example.com</wp:base_blog_url>
`);
  for (let a = 0; a < 5; a++) {
    await write(
      `<wp:author><wp:author_login><![CDATA[author${a}]]></wp:author_login><wp:author_email>` +
        `<![CDATA[author${a}@example.com]]></wp:author_email><wp:author_display_name><![CDATA[Author ` +
        `${a}]]></wp:author_display_name></wp:author>\n`,
    );
  }
  for (let c = 0; c < 20; c++) {
    await write(
      `<wp:category><wp:category_nicename><![CDATA[cat-${c}]]></wp:category_nicename><wp:category_parent>` +
        `<![CDATA[${c > 10 ? `cat-${c - 10}` : ''}]]></wp:category_parent><wp:cat_name><![CDATA[Category ` +
        `${c}]]></wp:cat_name></wp:category>\n`,
    );
  }
  for (let t = 0; t < 100; t++) {
    await write(
      `<wp:tag><wp:tag_slug><![CDATA[tag-${t}]]></wp:tag_slug><wp:tag_name><![CDATA[Tag ${t}]]></wp:tag_name>` +
        `</wp:tag>\n`,
    );
  }
  for (let i = 1; i <= items; i++) {
    if (i % 10 === 0) {
      await write(
        `<item><title>Image ` +
          `${i}</title><wp:post_id>${i}</wp:post_id><wp:post_type><![CDATA[attachment]]></wp:post_type>` +
          `<wp:post_parent>${i - 1}</wp:post_parent><wp:attachment_url>` +
          `<![CDATA[https://bench.example.com/uploads/${i}.png]]></wp:attachment_url><wp:postmeta>` +
          `<wp:meta_key><![CDATA[_wp_attachment_image_alt]]></wp:meta_key><wp:meta_value><![CDATA[Photo ${i}]]>` +
          `</wp:meta_value></wp:postmeta></item>\n`,
      );
      continue;
    }
    const comments = Array.from(
      { length: i % 4 },
      (_, c) =>
        `<wp:comment><wp:comment_id>${i * 10 + c}</wp:comment_id><wp:comment_author><![CDATA[Reader ${c}]]>` +
        `</wp:comment_author><wp:comment_author_email><![CDATA[reader${c}@example.com]]></wp:comment_author_email>` +
        `<wp:comment_date_gmt><![CDATA[2024-01-02 10:00:00]]></wp:comment_date_gmt><wp:comment_content>` +
        `<![CDATA[${'Thanks for the report, it matters to us here. '.repeat(4)}]]></wp:comment_content>` +
        `<wp:comment_approved><![CDATA[1]]></wp:comment_approved></wp:comment>`,
    ).join('');
    await write(
      `<item><title>Post ${i} &amp; ` +
        `friends</title><link>https://bench.example.com/2024/01/post-${i}/</link>` +
        `<guid isPermaLink="false">https://bench.example.com/?p=${i}</guid>` +
        `<dc:creator><![CDATA[author${i % 5}]]></dc:creator><content:encoded><![CDATA[${postBody(i, items)}]]>` +
        `</content:encoded><excerpt:encoded><![CDATA[Excerpt ` +
        `${i}]]></excerpt:encoded><wp:post_id>${i}</wp:post_id><wp:post_date_gmt><![CDATA[2024-01-01 ` +
        `10:00:00]]></wp:post_date_gmt><wp:post_name><![CDATA[post-${i}]]></wp:post_name><wp:status>` +
        `<![CDATA[${i % 9 === 0 ? 'draft' : 'publish'}]]></wp:status><wp:post_type>` +
        `<![CDATA[${i % 50 === 5 ? 'page' : 'post'}]]></wp:post_type><category ` +
        `domain="category" nicename="cat-${i % 20}"><![CDATA[Category]]></category><category domain="post_tag" ` +
        `nicename="tag-${i % 100}"><![CDATA[Tag]]></category><category domain="post_tag" ` +
        `nicename="tag-${(i * 3) % 100}"><![CDATA[Tag]]></category><wp:postmeta><wp:meta_key>` +
        `<![CDATA[_thumbnail_id]]></wp:meta_key><wp:meta_value><![CDATA[${i - (i % 10)}]]></wp:meta_value>` +
        `</wp:postmeta><wp:postmeta><wp:meta_key><![CDATA[_edit_last]]></wp:meta_key><wp:meta_value>` +
        `<![CDATA[1]]></wp:meta_value></wp:postmeta>${comments}</item>\n`,
    );
  }
  await write('</channel>\n</rss>\n');
  out.end();
  await once(out, 'finish');
}

/** A tiny valid PNG; `n` appended after IEND so that files differ. */
function png(n) {
  const base = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  return Buffer.concat([base, Buffer.from(`image-${n}`)]);
}

const MARKDOWN_PARAGRAPH =
  'The river rose **two metres** overnight & residents were told to stay home; the café on Main Street ' +
  'stayed open. See https://example.com/news for more.';

/** A Ghost export (db[0].data) with posts, pages, tags and authors. */
async function generateGhost(file, items) {
  const out = createWriteStream(file);
  const write = async (text) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const users = Array.from({ length: 5 }, (_, a) => ({
    id: `u${a}`,
    slug: `author${a}`,
    name: `Author ${a}`,
  }));
  const tags = Array.from({ length: 20 }, (_, c) => ({ id: `t${c}`, slug: `tag-${c}`, name: `Tag ${c}` }));
  await write(`{"db":[{"meta":{"version":"5.0.0"},"data":{"users":${JSON.stringify(users)},`);
  await write(`"tags":${JSON.stringify(tags)},"posts":[`);
  for (let i = 1; i <= items; i++) {
    const html = [
      `<p>${PARAGRAPH.replace('\n', '<br>')}</p>`,
      `<figure class="kg-card kg-image-card kg-card-hascaption"><img src="__GHOST_URL__/content/images/${i}.png" ` +
        `alt="Photo ${i}"><figcaption>Caption ${i}</figcaption></figure>`,
      `<p>${PARAGRAPH.replace('\n', ' ')}</p>`,
      '<pre><code class="language-js">const x = 1;</code></pre>',
    ].join('');
    const post = {
      id: `p${i}`,
      title: `Post ${i} & friends`,
      slug: `post-${i}`,
      html,
      status: i % 9 === 0 ? 'draft' : 'published',
      type: i % 50 === 5 ? 'page' : 'post',
      published_at: '2024-01-01T10:00:00.000Z',
      custom_excerpt: `Excerpt ${i}`,
      feature_image: `__GHOST_URL__/content/images/${i}.png`,
    };
    await write(`${i > 1 ? ',' : ''}${JSON.stringify(post)}`);
  }
  await write('],"posts_tags":[');
  for (let i = 1; i <= items; i++) {
    await write(`${i > 1 ? ',' : ''}{"post_id":"p${i}","tag_id":"t${i % 20}","sort_order":0}`);
  }
  await write('],"posts_authors":[');
  for (let i = 1; i <= items; i++) {
    await write(`${i > 1 ? ',' : ''}{"post_id":"p${i}","author_id":"u${i % 5}","sort_order":0}`);
  }
  await write(']}}]}\n');
  out.end();
  await once(out, 'finish');
}

/**
 * A Hugo site: every tenth post a page bundle with its own image (every twentieth with a Spanish
 * translation), the others leaf files, half in TOML and half in YAML, with built-in shortcodes and
 * 100 images in static/.
 */
async function generateHugo(siteDir, items) {
  await mkdir(path.join(siteDir, 'static/images'), { recursive: true });
  await mkdir(path.join(siteDir, 'content/posts'), { recursive: true });
  await writeFile(
    path.join(siteDir, 'hugo.toml'),
    'baseURL = "https://hugo.bench.example/"\ndefaultContentLanguage = "en"\n' +
      '[languages.en]\nweight = 1\n[languages.es]\nweight = 2\n[params]\nowner = "Bench"\n',
  );
  for (let n = 0; n < 100; n++) await writeFile(path.join(siteDir, `static/images/${n}.png`), png(n));
  await writeFile(path.join(siteDir, 'content/about.md'), '---\ntitle: About\n---\nAbout the bench.\n');
  for (let i = 1; i <= items; i++) {
    const bundle = i % 10 === 0;
    const meta = {
      title: `Post ${i}`,
      date: `2024-01-${String((i % 28) + 1).padStart(2, '0')}T10:00:00+01:00`,
      draft: i % 9 === 0,
      categories: [`Category ${i % 20}`],
      tags: [`tag-${i % 100}`, 'bench'],
      authors: [`author${i % 5}`],
    };
    const frontMatter =
      i % 2 === 0
        ? `+++\ntitle = ${JSON.stringify(meta.title)}\ndate = ${meta.date}\ndraft = ${meta.draft}\n` +
          `categories = ${JSON.stringify(meta.categories)}\ntags = ${JSON.stringify(meta.tags)}\n` +
          `authors = ${JSON.stringify(meta.authors)}\n+++\n`
        : `---\ntitle: ${meta.title}\ndate: ${meta.date}\ndraft: ${meta.draft}\n` +
          `categories: [${meta.categories[0]}]\ntags: [${meta.tags.join(', ')}]\nauthors: [${meta.authors[0]}]\n---\n`;
    const body = [
      MARKDOWN_PARAGRAPH,
      bundle
        ? '{{< figure src="cover.png" alt="The cover" caption="A *caption*" >}}'
        : `![Photo ${i}](/images/${i % 100}.png)`,
      MARKDOWN_PARAGRAPH,
      i % 3 === 0
        ? '{{< youtube dQw4w9WgXcQ >}}'
        : '{{< highlight go >}}\nfmt.Println("hi")\n{{< /highlight >}}',
      `Read [the first post]({{< ref "post-1" >}}). {{< param owner >}}`,
    ].join('\n\n');
    if (bundle) {
      const dir = path.join(siteDir, `content/posts/post-${i}`);
      await mkdir(dir);
      await writeFile(path.join(dir, 'cover.png'), png(1000 + i));
      await writeFile(path.join(dir, 'index.md'), `${frontMatter}\n${body}\n`);
      if (i % 20 === 0) await writeFile(path.join(dir, 'index.es.md'), `${frontMatter}\n${body}\n`);
    } else {
      await writeFile(path.join(siteDir, `content/posts/post-${i}.md`), `${frontMatter}\n${body}\n`);
    }
  }
}

/** A Jekyll site: _posts with Liquid (baseurl, relative_url, highlight, raw), drafts, 100 images in assets/. */
async function generateJekyll(siteDir, items) {
  await mkdir(path.join(siteDir, 'assets/img'), { recursive: true });
  await mkdir(path.join(siteDir, '_posts'), { recursive: true });
  await mkdir(path.join(siteDir, '_data'), { recursive: true });
  await writeFile(
    path.join(siteDir, '_config.yml'),
    'title: Bench\nurl: https://jekyll.bench.example\nbaseurl: /blog\ntimezone: Europe/London\n',
  );
  await writeFile(
    path.join(siteDir, '_data/authors.yml'),
    Array.from({ length: 5 }, (_, a) => `author${a}:\n  name: Author ${a}\n`).join(''),
  );
  for (let n = 0; n < 100; n++) await writeFile(path.join(siteDir, `assets/img/${n}.png`), png(n));
  await writeFile(path.join(siteDir, 'about.md'), '---\ntitle: About\n---\nAbout the bench.\n');
  for (let i = 1; i <= items; i++) {
    const day = `2024-01-${String((i % 28) + 1).padStart(2, '0')}`;
    const frontMatter =
      `---\nlayout: post\ntitle: "Post ${i}"\n${i % 4 === 0 ? '' : `date: ${day} 10:00:00 +0100\n`}` +
      `categories: cat-${i % 20}\ntags: [tag-${i % 100}, bench]\nauthor: author${i % 5}\n` +
      `${i % 9 === 0 ? 'published: false\n' : ''}---\n`;
    const body = [
      MARKDOWN_PARAGRAPH,
      `![Photo ${i}]({{ site.baseurl }}/assets/img/${i % 100}.png)`,
      MARKDOWN_PARAGRAPH,
      '{% highlight ruby %}\nputs "hi"\n{% endhighlight %}',
      `Read [about]({{ "/about/" | relative_url }}); {% raw %}\`{{ page.title }}\`{% endraw %}.`,
    ].join('\n\n');
    await writeFile(path.join(siteDir, `_posts/${day}-post-${i}.md`), `${frontMatter}\n${body}\n`);
  }
}

const [kind] = ONLY;
const quiet = args.includes('--quiet');
const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-import-'));
try {
  const input = { wordpress: 'export.xml', ghost: 'ghost.json', hugo: 'hugo-site', jekyll: 'jekyll-site' }[
    kind
  ];
  const source = path.join(dir, input);
  if (kind === 'wordpress') await generate(source, ITEMS);
  else if (kind === 'ghost') await generateGhost(source, ITEMS);
  else if (kind === 'hugo') await generateHugo(source, ITEMS);
  else await generateJekyll(source, ITEMS);
  if (!quiet) console.log(`cms-sync import bench: ${machine()}`);
  const size =
    kind === 'wordpress' || kind === 'ghost'
      ? `, ${((await stat(source)).size / 2 ** 20).toFixed(1)} MiB`
      : '';
  console.log(`${kind}: ${ITEMS} posts${size}`);

  const { main } = await import('../dist/cli/main.js');
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const stdout = new PassThrough();
  let report = '';
  stdout.setEncoding('utf8').on('data', (s) => (report += s));
  const started = process.hrtime.bigint();
  const code = await main(['--cwd', dir, 'import', kind, input], {
    stdout,
    stderr: process.stderr,
    env: { PATH: process.env.PATH },
    cwd: dir,
    interrupted: new Promise(() => {}),
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (code !== 0) {
    console.log(report);
    throw new Error(`import exited ${code}`);
  }
  console.log(
    report
      .split('\n')
      .slice(1, 7)
      .filter((line) => /^ {2}\w/.test(line))
      .join('\n'),
  );
  console.log(`import: ${seconds.toFixed(1)} s, ${(ITEMS / seconds).toFixed(0)} items/s`);
  console.log(
    `peak RSS: ${(peak / 2 ** 20).toFixed(0)} MiB (${(before / 2 ** 20).toFixed(0)} MiB before the import)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
