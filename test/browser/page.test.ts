import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createProject, type Project } from '../e2e/harness.js';
import { launchBrowser, SKIP_BROWSER, type Browser } from './browser.js';

const SAMPLE = fileURLToPath(new URL('../../content', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('./.artifacts', import.meta.url));

if (SKIP_BROWSER)
  console.warn(
    'test/browser skipped: CMS_SYNC_SKIP_BROWSER=1 is set, so the local CMS page is NOT checked in a browser.',
  );

/** The sample newsroom, as files for `createProject`. */
async function sampleFiles(): Promise<Record<string, Buffer>> {
  const files: Record<string, Buffer> = {};
  for (const entry of await readdir(SAMPLE, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    files[path.posix.join('content', path.relative(SAMPLE, abs).split(path.sep).join('/'))] =
      await readFile(abs);
  }
  return files;
}

/** What the test reads of an `<img>` (tsconfig has no DOM lib: this runs in the browser). */
interface ImgLike {
  complete: boolean;
  naturalWidth: number;
  getAttribute(name: string): string | null;
  addEventListener(type: 'load' | 'error', listener: () => void): void;
}

/** What the test reads of an `<iframe>` (no DOM lib in tsconfig: this runs in the browser). */
interface FrameLike {
  getBoundingClientRect(): { height: number };
  contentDocument: { documentElement: { scrollHeight: number } } | null;
}

/** The `<img>`s of the article body's iframe, once each has loaded or failed. */
async function bodyImages(page: Page): Promise<Array<{ src: string; naturalWidth: number }>> {
  return page
    .frameLocator('iframe.body')
    .locator('img')
    .evaluateAll(async (imgs: ImgLike[]) => {
      const settled = (img: ImgLike) =>
        new Promise<void>((done) => {
          if (img.complete) return done();
          img.addEventListener('load', () => done());
          img.addEventListener('error', () => done());
        });
      await Promise.all(imgs.map(settled));
      return imgs.map((img) => ({ src: img.getAttribute('src') ?? '', naturalWidth: img.naturalWidth }));
    });
}

describe.skipIf(SKIP_BROWSER)('the local CMS page, in headless Chromium', () => {
  let browser: Browser;
  let project: Project | undefined;
  // The first run on a machine without a system Chromium unpacks the packaged one (~200 MB) first.
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it('lists the articles on / and shows each dynamic-block of an article as a loaded image', async () => {
    project = await createProject(await sampleFiles());
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(0);
    const articles = await project.records('article');
    expect(articles.length).toBe(5);

    const page = await browser.context.newPage();
    await page.goto(`${project.cms.url}/`);
    const listed = await page.locator('#article + table tbody tr').allInnerTexts();
    for (const article of articles) expect(listed.join('\n')).toContain(article.title);
    await page.screenshot({ path: path.join(ARTIFACTS, 'index.png'), fullPage: true });

    // The article with the most images, so sizes and a raw-HTML <img> are both on screen.
    const blocks = (body: string) => body.match(/<dynamic-block [^>]*data-type="media"/g)?.length ?? 0;
    const article = [...articles].sort((a, b) => blocks(b.body) - blocks(a.body))[0]!;
    expect(blocks(article.body)).toBeGreaterThanOrEqual(2);
    await page.goto(`${project.cms.url}/view/article/${article.id}`);
    await expect.poll(() => page.locator('h1').innerText()).toContain(article.title);
    const images = await bodyImages(page);
    expect(images).toHaveLength(blocks(article.body));
    expect(images.filter((i) => i.naturalWidth === 0)).toEqual([]);
    // The viewport, not fullPage: headless Chromium paints a sandboxed iframe blank in a
    // full-page capture, and the rendered body is at the top of the page anyway.
    await page.screenshot({ path: path.join(ARTIFACTS, 'article.png') });
    await page.close();
  });

  it('under watch, a saved change shows on reload', async () => {
    project = await createProject({
      'content/articles/harbour.md': '---\ntitle: Harbour opens\n---\nThe harbour opens on Monday.\n',
    });
    const watcher = project.spawn(['watch']);
    await watcher.waitForLine(/Watching content\/ for changes/, { timeoutMs: 15_000 });
    const [article] = await project.records('article');
    const page = await browser.context.newPage();
    await page.goto(`${project.cms.url}/view/article/${article!.id}`);
    await expect
      .poll(() => page.frameLocator('iframe.body').locator('body').innerText())
      .toContain('opens on Monday');
    // The frame is as tall as its content: no scroll bar, and no blank area under a short article.
    const frame = () =>
      page.locator('iframe.body').evaluate((f: FrameLike) => ({
        height: f.getBoundingClientRect().height,
        content: f.contentDocument?.documentElement.scrollHeight ?? -1,
      }));
    await expect.poll(async () => (await frame()).content).toBeGreaterThan(0);
    await expect
      .poll(async () => {
        const f = await frame();
        return f.height - f.content;
      })
      .toBeGreaterThanOrEqual(0);
    expect((await frame()).height).toBeLessThan(200);
    await page.screenshot({ path: path.join(ARTIFACTS, 'short-article.png'), fullPage: true });

    const after = watcher.stdoutLines.length;
    await project.write(
      'content/articles/harbour.md',
      '---\ntitle: Harbour opening delayed\n---\nThe harbour now opens on Thursday.\n',
    );
    await watcher.waitForLine(/articles\/harbour\.md → ~ article\/harbour/, { after, timeoutMs: 10_000 });
    await page.reload();
    expect(await page.locator('h1').innerText()).toContain('Harbour opening delayed');
    expect(await page.frameLocator('iframe.body').locator('body').innerText()).toContain('opens on Thursday');
    await page.close();
    expect((await watcher.stop()).code).toBe(0);
  });
});
