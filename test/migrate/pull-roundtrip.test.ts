import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, png, runCli, SECRET_TOKEN, type Project } from '../e2e/harness.js';
import {
  articleVariant,
  CATEGORIES,
  handWritten,
  SECTIONS,
  USERS,
  writeDoc,
} from '../fixtures/roundtrip/corpus.js';
import { FIXTURES } from './helpers.js';

// Articles take any field in the local CMS, so their extra front matter is passed through.
const CONFIG = 'export default { resources: { article: { passThrough: true } } };\n';

interface Change {
  action: string;
  key: string;
  fields?: string[];
}

/**
 * The corpus beside the importers' output: content/ path -> file text. Every hand-written article
 * as it is (variant 0), and every other variant once, on the articles in turn: each construct of
 * the bodies and each kind of front matter a variant adds reaches the CMS and comes back. Every
 * body of every variant is rendered and read back in fidelity.test.ts.
 */
async function corpus(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const articles = await handWritten('articles');
  for (const [name, base] of articles)
    files[`content/articles/${name}-0.md`] = writeDoc(articleVariant(base, 0));
  for (let j = 1; j < SECTIONS.length; j++) {
    const [name, base] = articles[(j - 1) % articles.length]!;
    files[`content/articles/${name}-${j}.md`] = writeDoc(articleVariant(base, j));
  }
  for (const [name, base] of await handWritten('pages')) {
    for (let j = 0; j < 4; j++) {
      const section = SECTIONS[(j * 5) % SECTIONS.length]!;
      files[`content/pages/${name}-${j}.md`] = writeDoc({
        frontMatter: { ...base.frontMatter, title: `${String(base.frontMatter.title)} ${j}` },
        body: section ? `${base.body}\n\n${section}` : base.body,
      });
    }
  }
  CATEGORIES.forEach((slug, i) => {
    const fm: Record<string, unknown> = { name: slug[0]!.toUpperCase() + slug.slice(1) };
    if (i % 2 === 0) fm.description = `All about ${slug}: news & more`;
    files[`content/categories/${slug}.md`] = writeDoc({ frontMatter: fm, body: '' }).replace(/\n\n\n$/, '\n');
  });
  USERS.forEach((slug, i) => {
    const fm: Record<string, unknown> = { name: `${slug[0]!.toUpperCase()}${slug.slice(1)} Writer` };
    if (i % 2 === 0) fm.email = `${slug}@example.com`;
    if (i !== 1) fm.role = i === 0 ? 'editor' : 'author';
    files[`content/users/${slug}.md`] = writeDoc({
      frontMatter: fm,
      body: i === 3 ? 'Writes about *tech*.' : '',
    });
  });
  for (let j = 0; j < 8; j++) {
    const fm: Record<string, unknown> = { title: `Breaking ${j}: storm closes the bridge` };
    if (j % 2 === 0) fm.url = `https://example.com/live/${j}?q=a&b=c`;
    if (j % 3 !== 0) fm.status = j % 3 === 1 ? 1 : 0;
    files[`content/breaking/breaking-${j}.md`] = writeDoc({ frontMatter: fm, body: '' });
  }
  return files;
}

// The old sites' media, for what the importers wrote: the local CMS downloads it on apply.
let media: Server;
let mediaUrl: string;
beforeAll(async () => {
  media = createServer((req, res) => {
    if (!req.url?.endsWith('.png')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(png(req.url.length));
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => media.close(() => resolve())));

let project: Project | undefined;
let empty: string | undefined;
afterAll(async () => {
  await project?.close();
  if (empty) await rm(empty, { recursive: true, force: true });
});

describe('pull round-trips what apply wrote', () => {
  it('applies a varied corpus, pulls it into an empty project: plan there changes under 0.5% of records', async () => {
    const fixture = async (name: string) =>
      (await readFile(path.join(FIXTURES, name), 'utf8')).replaceAll('{{MEDIA}}', mediaUrl);
    project = await createProject({
      'sync.config.ts': CONFIG,
      'export.xml': await fixture('wordpress/export.xml'),
      'ghost.json': await fixture('ghost/export.json'),
    });
    // In this process: the imports only make the corpus; apply, pull and plan are what is checked.
    expect((await project.importInProcess({ source: 'wordpress', file: 'export.xml' })).failures).toEqual([]);
    expect(
      (await project.importInProcess({ source: 'ghost', file: 'ghost.json', ghostUrl: mediaUrl })).failures,
    ).toEqual([]);
    const handWrittenFiles = Object.entries(await corpus());
    for (const [file, text] of handWrittenFiles) await project.write(file, text);
    for (const [name, variant] of [
      ['river.png', 1],
      ['icon.png', 2],
      ['bridge.png', 3],
    ] as const)
      await project.write(`content/images/${name}`, png(variant));

    const apply = await project.run(['apply']);
    expect(apply.stderr.split('\n').filter((l) => /: error: /.test(l))).toEqual([]);
    expect(apply.code).toBe(0);

    // A new project, nothing in it but the config, on the same CMS.
    empty = await mkdtemp(path.join(tmpdir(), 'cms-sync-pulled-'));
    await writeFile(path.join(empty, 'sync.config.ts'), CONFIG);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CMS_BASE_URL: project.cms.url,
      CMS_API_TOKEN: SECRET_TOKEN,
      NO_COLOR: '1',
    };
    const pull = await runCli(['--cwd', empty, 'pull'], env);
    expect(pull.stdout + pull.stderr).not.toContain(SECRET_TOKEN);
    expect(pull.code).toBe(0);

    const planned = async () => {
      const run = await runCli(['--cwd', empty!, 'plan', '--json'], env);
      return (JSON.parse(run.stdout) as { plan: { changes: Change[]; uploads: unknown[] } }).plan;
    };
    // As pull left it (its state says what each file renders to), and then judged afresh:
    // without state, plan renders every file and adopts a record only if no field differs.
    const adopted = await planned();
    await rm(path.join(empty, '.cms-sync'), { recursive: true, force: true });
    const fresh = await planned();
    for (const [plan, same] of [
      [adopted, 'unchanged'],
      [fresh, 'adopt'],
    ] as const) {
      const records = plan.changes.length;
      const changed = plan.changes.filter((c) => c.action !== same);
      const share = (records - changed.length) / records;
      console.log(
        `pull round trip: ${records - changed.length} of ${records} records ${same} ` +
          `(${(share * 100).toFixed(1)}%)` +
          changed.map((c) => `\n  ${c.key} ${c.action} ${c.fields?.join(', ') ?? ''}`).join(''),
      );
      // Every hand-written file's record, and the importers' besides. At this size the share below
      // allows no record to change.
      expect(records).toBeGreaterThan(handWrittenFiles.length);
      expect(plan.uploads).toEqual([]);
      expect(share).toBeGreaterThanOrEqual(0.995);
    }

    // What a reader of the pulled files sees: the front matter and the raw HTML kept.
    const pulled = (file: string) => readFile(path.join(empty!, 'content', file), 'utf8');
    const mixed = await pulled('articles/mixed-9.md');
    expect(mixed).toContain('category: sport\n');
    expect(mixed).toMatch(/tags:\n {2}- long\n {2}- mixed\n {2}- tag-9\n/);
    expect(mixed).toContain('rating: 4\n');
    expect(mixed).toContain('subtitle: Sub 9\n');
    expect(mixed).toMatch(/meta:\n {2}source: wire\n {2}priority: 2\n/);
    const embeds = await pulled('articles/embeds-0.md');
    expect(embeds).toContain("<!-- an editor's note: keep this -->");
    expect(embeds).toContain('<video src="https://media.example.com/clip.mp4" controls width="640">');
    expect(embeds).toContain('<iframe src="https://www.youtube.com/embed/abc123"');
    expect(embeds).toContain('<center>Centred text</center>');
    const notes = await pulled('articles/footnotes-0.md');
    expect(notes).toContain('A claim[^1] and another[^source] and the first again[^1].');
    expect(await pulled('articles/basics-1.md')).toContain('description: ');
  }, 300_000);
});
