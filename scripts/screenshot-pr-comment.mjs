#!/usr/bin/env node
/**
 * docs/pr-comment.png: the pull request comment of `cms-sync ci-report --pr-comment`, as GitHub
 * shows it. A small newsroom project is applied to the embedded local CMS, edited, and planned
 * with `plan --json --diff` by the real CLI; the comment is built from that plan by the code the
 * workflow runs, its Markdown rendered as GitHub renders it (GFM, raw <details>, diff blocks
 * coloured by line) inside a comment's frame, and photographed by headless Chromium.
 *
 *   npm run build && node scripts/screenshot-pr-comment.mjs [--out docs/pr-comment.png] [--html page.html]
 *
 * It also prints the text plan (`plan --diff`) of the same edit, for the README.
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';
import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin/cms-sync.js');

/** A diff block's lines as GitHub colours them: additions, deletions and hunk headers. */
function diffLines() {
  return (tree) => {
    visit(tree, 'element', (node) => {
      if (node.tagName !== 'code' || !String(node.properties?.className ?? '').includes('language-diff'))
        return;
      const text = node.children.map((child) => (child.type === 'text' ? child.value : '')).join('');
      node.children = text.split(/(?<=\n)/).map((line) => {
        const kind = line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : line.startsWith('@@')
              ? 'hunk'
              : '';
        const span = {
          type: 'element',
          tagName: 'span',
          properties: {},
          children: [{ type: 'text', value: line }],
        };
        if (kind) span.properties.className = [`diff-${kind}`];
        return span;
      });
    });
  };
}

/**
 * The comment's Markdown as GitHub renders it: GFM, the raw HTML GitHub allows (<details>,
 * <summary>, <code>) kept, HTML comments (the marker) hidden, diff blocks coloured by line.
 */
export async function commentHtml(markdown) {
  const file = await unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeRaw)
    .use(diffLines)
    .use(rehypeStringify)
    .process(markdown);
  // GitHub never shows an HTML comment; rehype keeps them in the output, where a browser hides them too.
  return String(file).replace(/<!--[\s\S]*?-->/g, '');
}

/** GitHub's comment frame and the Markdown styles it uses (a subset of github-markdown-css, light theme). */
export function commentPage(bodyHtml) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>
  body { margin: 0; padding: 16px; background: #fff; color: #1f2328;
    font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans", sans-serif; }
  .timeline { display: flex; gap: 16px; width: 820px; padding: 4px; }
  .avatar { width: 40px; height: 40px; border-radius: 50%; background: #2da44e; flex: none; color: #fff;
    display: flex; align-items: center; justify-content: center; font-weight: 600; font-size: 16px; }
  .comment { flex: 1; border: 1px solid #d1d9e0; border-radius: 6px; min-width: 0; }
  .header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0;
    padding: 8px 16px; color: #59636e; }
  .header b { color: #1f2328; }
  .label { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px; margin: 0 4px; }
  .markdown-body { padding: 16px; }
  .markdown-body > :first-child { margin-top: 0 !important; }
  .markdown-body > :last-child { margin-bottom: 0 !important; }
  h3 { font-size: 1.25em; font-weight: 600; line-height: 1.25; margin: 24px 0 16px; }
  p, ul, pre, details, blockquote { margin: 0 0 16px; }
  ul { padding-left: 2em; }
  li + li { margin-top: .25em; }
  li > p { margin-top: 16px; }
  a { color: #0969da; text-decoration: none; }
  code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
    font-size: 85%; padding: .2em .4em; background: rgba(129, 139, 152, .12); border-radius: 6px; }
  pre { padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45; background: #f6f8fa; border-radius: 6px; }
  pre code { padding: 0; background: transparent; font-size: 100%; white-space: pre; }
  .diff-add { color: #116329; background: #f0fff4; }
  .diff-del { color: #82071e; background: #ffebe9; }
  .diff-hunk { color: #8250df; }
  details summary { cursor: pointer; display: list-item; }
  details:not([open]) > :not(summary) { display: none; }
  blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
</style></head><body>
<div class="timeline">
  <div class="avatar">▶</div>
  <div class="comment">
    <div class="header"><b>github-actions</b><span class="label">bot</span> commented 2 minutes ago</div>
    <div class="markdown-body">${bodyHtml}</div>
  </div>
</div>
</body></html>`;
}

const run = promisify(execFile);

/** The real CLI in `dir`, on the embedded local CMS (no CMS_BASE_URL): its stdout. */
async function cli(dir, args) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const { stdout } = await run(process.execPath, [BIN, '--cwd', dir, ...args], { env }).catch((error) => {
    // plan --detailed-exitcode is not used; a non-zero exit here is a real failure, but its output helps.
    if (error.stdout) return error;
    throw error;
  });
  return stdout;
}

const paragraphs = (lines) => lines.map((line) => `${line}\n`).join('\n');

const budget = (lines) =>
  '---\ntitle: Council passes the 2027 budget\ncategory: politics\ndate: 2026-11-20\n---\n\n' +
  paragraphs(lines);
const flood = (title, lines) => `---\ntitle: ${title}\ncategory: politics\n---\n\n${paragraphs(lines)}`;

/** The newsroom before the edit under review. */
const BEFORE = {
  'content/categories/politics.md': '---\nname: Politics\ndescription: Parliament and the council\n---\n',
  'content/articles/budget-vote.md': budget([
    'The council passed the 2027 budget by 31 votes to 14.',
    'Spending on schools rises by 4 per cent.',
    '## What changes for residents',
    'Bus fares stay the same.',
    'Parking in the centre costs 20 cents more an hour.',
    'The harbour bridge repair starts in March.',
    'The opposition said the repair was two years late.',
  ]),
  'content/articles/flood-warning.md': flood('Flood warnng for the river district', [
    'The river is expected to peak on Saturday.',
    'Sandbags are available at the fire station.',
  ]),
};

/** The edit a reporter pushes in the pull request. */
const AFTER = {
  'content/articles/budget-vote.md': budget([
    'The council passed the 2027 budget on Thursday night by 31 votes to 14.',
    'Spending on schools rises by 4 per cent, the largest rise in a decade.',
    '## What changes for residents',
    'Bus fares stay the same until 2028.',
    'Parking in the centre costs 20 cents more an hour from January.',
    'The harbour bridge repair starts in March and lasts a year.',
    'The opposition said the repair was two years late.',
    '> "We fixed the roof while the sun was shining," the mayor said.',
  ]),
  'content/articles/flood-warning.md': flood('Flood warning for the river district', [
    'The river is expected to peak on Saturday morning.',
    'Sandbags are available at the fire station.',
  ]),
  'content/articles/school-reopens.md':
    '---\ntitle: Harbour school reopens after repairs\ncategory: politics\n---\n\n' +
    paragraphs(['Pupils return on Monday.']),
};

async function writeFiles(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
}

/** CHROMIUM_PATH, the system's Chromium, or the one @sparticuz/chromium ships (as test/browser/browser.ts finds it). */
async function findChromium() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const packageDir = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')),
    '..',
    '..',
  );
  const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
  const cache = path.join(ROOT, 'node_modules', '.cache', 'cms-sync-chromium', version);
  const binary = path.join(cache, 'chromium');
  if (existsSync(binary)) return binary;
  await mkdir(cache, { recursive: true });
  const partial = `${binary}.${process.pid}.partial`;
  await pipeline(
    createReadStream(path.join(packageDir, 'bin', 'chromium.br')),
    createBrotliDecompress(),
    createWriteStream(partial, { mode: 0o755 }),
  );
  await rename(partial, binary);
  return binary;
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const out = path.resolve(ROOT, option('--out', 'docs/pr-comment.png'));
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-pr-comment-'));
  try {
    await writeFiles(dir, BEFORE);
    await cli(dir, ['apply']);
    await writeFiles(dir, AFTER);
    process.stdout.write(await cli(dir, ['plan', '--diff', '--no-pager']));
    await writeFile(path.join(dir, 'plan.json'), await cli(dir, ['plan', '--json', '--diff']));

    const report = await import(pathToFileURL(path.join(ROOT, 'dist/init/ci-report.js')).href);
    const doc = report.parseSyncJson(await readFile(path.join(dir, 'plan.json'), 'utf8'), 'plan.json');
    const markdown = report.commentMarkdown(doc, {
      summaryUrl: 'https://github.com/newsroom/site/actions/runs/12345',
    });
    const page = commentPage(await commentHtml(markdown));
    const html = option('--html');
    if (html) await writeFile(path.resolve(html), page);

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: await findChromium(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
      ],
    });
    try {
      const tab = await browser.newPage({ viewport: { width: 900, height: 400 }, deviceScaleFactor: 1 });
      await tab.setContent(page);
      await mkdir(path.dirname(out), { recursive: true });
      await tab.locator('.timeline').screenshot({ path: out });
    } finally {
      await browser.close();
    }
    process.stderr.write(`Wrote ${path.relative(process.cwd(), out)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
