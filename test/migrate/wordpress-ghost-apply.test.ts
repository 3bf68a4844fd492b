import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, png, type Project } from '../e2e/harness.js';
import { FIXTURES } from './helpers.js';

// The old site's images, served on loopback so the local CMS really downloads them.
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
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const errorsIn = (stderr: string) =>
  stderr.split('\n').filter((line) => line.trim() !== '' && !/: warning: /.test(line));

async function fixture(name: string): Promise<string> {
  return (await readFile(path.join(FIXTURES, name), 'utf8')).replaceAll('{{MEDIA}}', mediaUrl);
}

// Several runs of the built CLI each: on a busy machine they take longer than the default timeout.
describe('imported embeds, drafts and links reach the CMS (built CLI, local CMS)', () => {
  it('WordPress: players, gists, audio and video are in the bodies; private and protected are drafts', async () => {
    project = await createProject({ 'export.xml': await fixture('wordpress/theme-unit.xml') });
    expect((await project.run(['import', 'wordpress', 'export.xml'])).code).toBe(0);
    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);

    const articles = await project.records('article');
    const block = articles.find((a) => a.slug === 'block-embeds')!.body as string;
    expect(block).toContain('<iframe src="https://www.youtube.com/embed/YT-block_1"');
    expect(block).toContain('<blockquote class="twitter-tweet">');
    expect(block).toContain('<audio controls src="');
    expect(block).toContain('<video controls src="');
    expect(block).toContain('<iframe src="https://player.vimeo.com/video/76979871"');
    expect(block).toContain('<a href="/articles/classic-embeds/">the classic post</a>');
    const classic = articles.find((a) => a.slug === 'classic-embeds')!.body as string;
    expect(classic).toContain('<script src="https://gist.github.com/themedemos/5f1c2a.js"></script>');
    expect(classic).toContain('<source src="');
    expect(articles.find((a) => a.slug === 'private-post')).toMatchObject({ status: 0 });
    expect(articles.find((a) => a.slug === 'hello-world-3')).toMatchObject({ title: 'Hello world, again' });
    const pages = await project.records('page');
    expect(pages.find((p) => p.slug === 'private-page')).toMatchObject({ status: 0 });
    expect(pages.find((p) => p.slug === 'protected-page')).toMatchObject({ status: 0 });

    const again = await project.run(['apply']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 to create, 0 to update');
  }, 90_000);

  it('Ghost: gist scripts and embed cards are in the bodies; paid and members-only items are drafts', async () => {
    project = await createProject({ 'ghost.json': await fixture('ghost/embeds.json') });
    expect((await project.run(['import', 'ghost', 'ghost.json', '--ghost-url', mediaUrl])).code).toBe(0);
    const apply = await project.run(['apply']);
    expect(errorsIn(apply.stderr)).toEqual([]);
    expect(apply.code).toBe(0);
    const articles = await project.records('article');
    const code = articles.find((a) => a.slug === 'code-samples')!.body as string;
    expect(code.match(/<script src="https:\/\/gist\.github\.com\/jane\/[^"]+"><\/script>/g)).toHaveLength(2);
    expect(code).toContain('<iframe width="200" height="113" src="https://www.youtube.com/embed/GhostYT01');
    expect(articles.find((a) => a.slug === 'members-news')).toMatchObject({ status: 0 });
    expect(articles.find((a) => a.slug === 'code-samples-2')).toMatchObject({ status: 0 });
    const pages = await project.records('page');
    expect(pages.find((p) => p.slug === 'team')).toMatchObject({ status: 0 });
    expect(pages.find((p) => p.slug === 'about')).toMatchObject({ status: 1 });
  }, 90_000);
});
