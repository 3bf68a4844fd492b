import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, removeDir, startTestCms, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map(removeDir));
});

async function project(): Promise<{ dir: string; stateFile: string }> {
  const dir = await tempDir('cms-page-project-');
  dirs.push(dir);
  await mkdir(join(dir, 'content/articles'), { recursive: true });
  await writeFile(join(dir, 'content/articles/harbour.md'), '---\ntitle: Harbour <opens>\n---\nOn Monday.\n');
  await writeFile(join(dir, 'secret.txt'), 'not for the page');
  await symlink(join(dir, 'secret.txt'), join(dir, 'content/articles/link.md'));
  return { dir, stateFile: join(dir, 'state.json') };
}

async function page(url: string): Promise<{ status: number; html: string; csp: string | null }> {
  const response = await fetch(url);
  return {
    status: response.status,
    html: await response.text(),
    csp: response.headers.get('content-security-policy'),
  };
}

describe('the pages, beside a project that syncs here', () => {
  it('show status by name from the status map, and link each record to its source file', async () => {
    const { dir, stateFile } = await project();
    const cms = await startTestCms({
      statusNames: new Map([
        [5, 'draft'],
        [9, 'published'],
      ]),
      sourceProject: {
        dir,
        contentDir: join(dir, 'content'),
        stateFiles: [stateFile, join(dir, 'missing.json')],
      },
    });
    try {
      const harbour = await ok(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'Harbour', status: 5 },
      });
      const other = await ok(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'Other', status: 7 },
      });
      const linked = await ok(cms, { resource: 'article', action: 'add', data: { title: 'Link' } });
      const outside = await ok(cms, { resource: 'article', action: 'add', data: { title: 'Out' } });
      const records = {
        'article/harbour': { id: harbour.id, file: 'content/articles/harbour.md' },
        'article/link': { id: linked.id, file: 'content/articles/link.md' },
        'article/out': { id: outside.id, file: 'secret.txt' },
      };
      // A state of another CMS names other records by the same ids: never shown.
      await writeFile(stateFile, JSON.stringify({ target: 'https://cms.example.com', records }));
      expect((await page(`${cms.url}/view/article`)).html).not.toContain('/source/');
      await writeFile(stateFile, JSON.stringify({ target: 'local', records }));

      const index = await page(`${cms.url}/view/article`);
      expect(index.html).toContain('<td>draft <span class="muted">(5)</span></td>');
      expect(index.html).toContain('<td>7</td>');
      expect(index.html).toContain(`<a href="/source/article/${harbour.id}">content/articles/harbour.md</a>`);

      const view = await page(`${cms.url}/view/article/${harbour.id}`);
      expect(view.html).toContain(
        `from <a href="/source/article/${harbour.id}">content/articles/harbour.md</a>`,
      );
      expect(view.html).toContain('<th>status</th><td class="json">draft <span class="muted">(5)</span>');

      const source = await page(`${cms.url}/source/article/${harbour.id}`);
      expect(source.status).toBe(200);
      expect(source.html).toContain('title: Harbour &lt;opens&gt;');

      // A state naming a file outside content/, directly or through a link, never makes the server read it.
      for (const id of [linked.id, outside.id, other.id, 999]) {
        const refused = await page(`${cms.url}/source/article/${id}`);
        expect(refused.status).toBe(404);
        expect(refused.html).not.toContain('not for the page');
      }
    } finally {
      await cms.stop();
    }
  });

  it('admit one script, by its hash: the one that sizes body frames', async () => {
    const cms = await startTestCms();
    try {
      const article = await ok(cms, {
        resource: 'article',
        action: 'add',
        data: { title: 'A', body: '<p>Short.</p>' },
      });
      const view = await page(`${cms.url}/view/article/${article.id}`);
      expect(view.csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
      const script = /<script>([\s\S]*?)<\/script>/.exec(view.html)![1]!;
      const { createHash } = await import('node:crypto');
      expect(view.csp).toContain(`'sha256-${createHash('sha256').update(script).digest('base64')}'`);
      expect(view.html).toContain('sandbox="allow-same-origin"');
      expect(view.html).not.toContain('allow-scripts');
    } finally {
      await cms.stop();
    }
  });
});

describe('a remembered port', () => {
  it('is taken again by the next server on the same data, and any free port when it is in use', async () => {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    const first = await startTestCms({ dataDir, rememberPort: true });
    const port = new URL(first.url).port;
    await first.stop();
    expect((await readFile(join(dataDir, 'port'), 'utf8')).trim()).toBe(port);

    const second = await startTestCms({ dataDir, rememberPort: true });
    expect(new URL(second.url).port).toBe(port);
    await second.stop();

    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(Number(port), '127.0.0.1', resolve));
    try {
      const third = await startTestCms({ dataDir, rememberPort: true });
      expect(new URL(third.url).port).not.toBe(port);
      await third.stop();
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
