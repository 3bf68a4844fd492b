import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

/**
 * A CMS whose writes are named `create`, `update` and `remove` and whose `create` answers
 * `{"uid": N}`: beyond what `wire` can express. It is the local CMS behind a proxy that maps
 * those actions to the API's and refuses the API's own write names.
 */
async function renamingProxy(upstream: string) {
  const seen: string[] = [];
  const names: Record<string, string> = { create: 'add', update: 'edit', remove: 'delete' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resource: string; action: string };
      seen.push(`${body.resource}.${body.action}`);
      if (['add', 'edit', 'delete'].includes(body.action)) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'error', message: `unknown action ${body.action}` }));
        return;
      }
      const action = names[body.action] ?? body.action;
      const { 'content-length': _length, ...headers } = req.headers;
      const forward = httpRequest(
        upstream,
        { method: 'POST', headers: { ...headers, host: new URL(upstream).host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const json = JSON.parse(Buffer.concat(parts).toString('utf8')) as { status: string; data?: any };
            if (json.status === 'success' && body.action === 'create') json.data = { uid: json.data.id };
            res.writeHead(answer.statusCode ?? 500, { 'content-type': 'application/json' });
            res.end(JSON.stringify(json));
          });
        },
      );
      forward.end(JSON.stringify({ ...body, action }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const CONFIG = `
export default {
  target: {
    client: (options, createDefault) => {
      const client = createDefault(options);
      client.add = async (resource, data, o) => {
        const answer = await client.call({ resource, action: 'create', data }, o);
        return { id: answer.uid, record: undefined };
      };
      client.edit = async (resource, id, data, o) => {
        await client.call({ resource, action: 'update', id, data }, o);
        return undefined;
      };
      client.delete = async (resource, id, o) => {
        await client.call({ resource, action: 'remove', id }, o);
      };
      return client;
    },
  },
};
`;

describe('a custom API client from sync.config.ts', () => {
  let project: Project;
  let proxy: Awaited<ReturnType<typeof renamingProxy>>;
  beforeEach(async () => {
    project = await createProject({
      'sync.config.ts': CONFIG,
      'content/articles/one.md': '---\ntitle: One\n---\n\nFirst.\n',
      'content/articles/two.md': '---\ntitle: Two\n---\n\nSecond.\n',
    });
    proxy = await renamingProxy(project.cms.apiUrl);
  });
  afterEach(async () => {
    await proxy.close();
    await project.close();
  });

  it('syncs creates, edits and deletes through it, and a rerun writes nothing', async () => {
    const env = { env: { CMS_BASE_URL: proxy.url } };
    const first = await project.run(['apply'], env);
    expect(first.code, first.stderr).toBe(0);
    expect((await project.records('article')).map((r) => r.title)).toEqual(['One', 'Two']);

    await project.write('content/articles/one.md', '---\ntitle: One, edited\n---\n\nFirst.\n');
    await project.remove('content/articles/two.md');
    const second = await project.run(['apply', '--prune'], env);
    expect(second.code, second.stderr).toBe(0);
    expect((await project.records('article')).map((r) => r.title)).toEqual(['One, edited']);

    const writes = () => proxy.seen.filter((s) => !s.endsWith('.get'));
    expect(writes()).toEqual(['article.create', 'article.create', 'article.update', 'article.remove']);
    const rerun = await project.run(['apply', '--prune'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(writes()).toHaveLength(4);
  });
});
