// Imports a generated WordPress export and prints items/s and peak memory (RSS).
//   node bench/import.mjs              5,000 posts
//   node bench/import.mjs --items 50000
// Needs `npm run build` first (it runs the built CLI from dist/, in this process, so
// process.memoryUsage().rss sampled every 20 ms covers the import itself).
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { machine } from './lib.mjs';

const args = process.argv.slice(2);
const itemsArg = args.indexOf('--items');
const ITEMS = itemsArg >= 0 ? Number(args[itemsArg + 1]) : 5000;
if (!Number.isInteger(ITEMS) || ITEMS < 1)
  throw new Error(`Expected \`--items\` to be an integer >= 1, got \`${args[itemsArg + 1]}\``);

const { main } = await import('../dist/cli/main.js');

const PARAGRAPH =
  'The river rose <strong>two metres</strong> overnight & residents were told to stay home; the café on Main Street ' +
  'stayed open.\nA second line of the same paragraph.';

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
  for (let i = 1; i <= items; i++) {
    if (i % 10 === 0) {
      await write(
        `<item><title>Image ` +
          `${i}</title><wp:post_id>${i}</wp:post_id><wp:post_type><![CDATA[attachment]]></wp:post_type>` +
          `<wp:post_parent>${i - 1}</wp:post_parent><wp:attachment_url>` +
          `<![CDATA[https://bench.example.com/uploads/${i}.png]]></wp:attachment_url></item>\n`,
      );
      continue;
    }
    const body = [
      PARAGRAPH,
      PARAGRAPH,
      `[caption id="attachment_${i}" width="300"]<img src="/uploads/${i}.png" alt="Photo ${i}" class="size-medium" ` +
        `/> Caption ${i}[/caption]`,
      PARAGRAPH,
      i % 7 === 0 ? '[gallery]' : '[embed]https://video.example.com/' + i + '[/embed]',
      PARAGRAPH,
    ].join('\n\n');
    await write(
      `<item><title>Post ${i} &amp; ` +
        `friends</title><dc:creator><![CDATA[author${i % 5}]]></dc:creator><content:encoded><![CDATA[${body}]]>` +
        `</content:encoded><excerpt:encoded><![CDATA[Excerpt ` +
        `${i}]]></excerpt:encoded><wp:post_id>${i}</wp:post_id><wp:post_date_gmt><![CDATA[2024-01-01 ` +
        `10:00:00]]></wp:post_date_gmt><wp:post_name><![CDATA[post-${i}]]></wp:post_name><wp:status>` +
        `<![CDATA[${i % 9 === 0 ? 'draft' : 'publish'}]]></wp:status><wp:post_type>` +
        `<![CDATA[${i % 50 === 5 ? 'page' : 'post'}]]></wp:post_type><category ` +
        `domain="category" nicename="cat-${i % 20}"><![CDATA[Category]]></category><category domain="post_tag" ` +
        `nicename="tag-${i % 100}"><![CDATA[Tag]]></category><wp:postmeta><wp:meta_key><![CDATA[_thumbnail_id]]>` +
        `</wp:meta_key><wp:meta_value><![CDATA[${i - (i % 10)}]]></wp:meta_value></wp:postmeta><wp:comment>` +
        `<wp:comment_content><![CDATA[Nice]]></wp:comment_content></wp:comment></item>\n`,
    );
  }
  await write('</channel>\n</rss>\n');
  out.end();
  await once(out, 'finish');
}

const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-bench-import-'));
try {
  const file = path.join(dir, 'export.xml');
  await generate(file, ITEMS);
  const size = (await stat(file)).size;
  console.log(`cms-sync import bench: ${machine()}`);
  console.log(`export: ${ITEMS} items, ${(size / 2 ** 20).toFixed(1)} MiB`);

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
  const code = await main(['--cwd', dir, 'import', 'wordpress', 'export.xml'], {
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
  console.log(report.split('\n').slice(1, 6).join('\n'));
  console.log(`import: ${seconds.toFixed(1)} s, ${(ITEMS / seconds).toFixed(0)} items/s`);
  console.log(
    `peak RSS: ${(peak / 2 ** 20).toFixed(0)} MiB (${(before / 2 ** 20).toFixed(0)} MiB before the import)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
