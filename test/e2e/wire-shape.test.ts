import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

/**
 * A CMS whose answers to add and edit hold the record two levels down
 * (`{"result":{"entry":{...}}}`): the local CMS behind a proxy that rewraps its answers and
 * counts requests by action.
 */
async function nestingProxy(upstream: string) {
  const counts: Record<string, number> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(text) as { resource: string; action: string; id?: number };
      const kind = `${body.resource}.${body.action}${body.action === 'get' && body.id !== undefined ? '(id)' : ''}`;
      counts[kind] = (counts[kind] ?? 0) + 1;
      const forward = httpRequest(
        upstream,
        { method: 'POST', headers: { ...req.headers, host: new URL(upstream).host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const json = JSON.parse(Buffer.concat(parts).toString('utf8')) as {
              status: string;
              data?: unknown;
            };
            if (
              json.status === 'success' &&
              ['add', 'edit'].includes(body.action) &&
              body.resource !== 'media'
            ) {
              json.data = { result: { entry: json.data } };
            }
            res.writeHead(answer.statusCode ?? 500, { 'content-type': 'application/json' });
            res.end(JSON.stringify(json));
          });
        },
      );
      forward.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const articles = Object.fromEntries(
  Array.from({ length: 5 }, (_, i) => [
    `content/articles/story-${i}.md`,
    `---\ntitle: Story ${i}\n---\n\nText ${i}.\n`,
  ]),
);

describe('a CMS that nests the written record deeper than one level', () => {
  let project: Project;
  let proxy: Awaited<ReturnType<typeof nestingProxy>>;
  beforeEach(async () => {
    project = await createProject(articles);
    proxy = await nestingProxy(project.cms.apiUrl);
  });
  afterEach(async () => {
    await proxy.close();
    await project.close();
  });

  const config = (wire: string) => `export default { wire: ${wire} };\n`;

  it('with wire.recordPaths, reads each written record from the answer: no get after a write', async () => {
    await project.write('sync.config.ts', config(`{ recordPaths: ['result.entry'] }`));
    const first = await project.run(['apply'], { env: { CMS_BASE_URL: proxy.url } });
    expect(first.code, first.stderr).toBe(0);
    expect(proxy.counts['article.add']).toBe(5);
    expect(proxy.counts['article.get(id)']).toBeUndefined();

    await project.write('content/articles/story-0.md', '---\ntitle: Story 0, edited\n---\n\nText 0.\n');
    const second = await project.run(['apply'], { env: { CMS_BASE_URL: proxy.url } });
    expect(second.code, second.stderr).toBe(0);
    expect(proxy.counts['article.edit']).toBe(1);
    expect(proxy.counts['article.get(id)']).toBeUndefined();
    const rerun = await project.run(['apply'], { env: { CMS_BASE_URL: proxy.url } });
    expect(rerun.stdout).toMatch(/No changes|0 to create/);
    expect(proxy.counts['article.edit']).toBe(1);
  });

  it('without it, the id is still found through idPaths, at the cost of one get per write', async () => {
    await project.write('sync.config.ts', config(`{ idPaths: ['result.entry.id'] }`));
    const first = await project.run(['apply'], { env: { CMS_BASE_URL: proxy.url } });
    expect(first.code, first.stderr).toBe(0);
    expect(proxy.counts['article.add']).toBe(5);
    expect(proxy.counts['article.get(id)']).toBe(5);
  });
});
