import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient, type CmsClient } from '../../src/remote/client.js';
import { CmsAmbiguousError } from '../../src/remote/errors.js';
import { fakeClock, TOKEN } from './helpers.js';

/** A real CMS stand-in on port 0; `handle` decides per request (index from 0). */
async function startServer(
  handle: (body: Record<string, unknown>, index: number, req: IncomingMessage, res: ServerResponse) => void,
  port = 0,
) {
  const requests: { body: Record<string, unknown>; key: string | undefined }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push({ body, key: req.headers['idempotency-key'] as string | undefined });
      handle(body, requests.length - 1, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return { server, requests, port: (server.address() as AddressInfo).port };
}

const servers: Server[] = [];
const clients: CmsClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function reply(res: ServerResponse, statusCode: number, envelope: unknown) {
  res.writeHead(statusCode, { 'content-type': 'application/json' });
  res.end(JSON.stringify(envelope));
}

/** The connection closes after the request was fully received, before any answer. */
function drop(req: IncomingMessage) {
  req.socket.destroy();
}

function client(port: number, extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  const clock = fakeClock();
  const c = createClient({
    baseUrl: `http://127.0.0.1:${port}`,
    token: TOKEN,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    ...extra,
  });
  clients.push(c);
  return { client: c, clock };
}

describe('over a real socket', () => {
  it('works through the Pool with keep-alive', async () => {
    const { port, requests } = await startServer((body, _i, _req, res) =>
      reply(res, 200, { status: 'success', data: { id: body.id, title: 'x' } }),
    );
    const { client: c } = client(port);
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => c.get('article', id)));
    expect(results.map((r) => r?.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(requests).toHaveLength(6);
    expect(c.stats.bytesReceived).toBeGreaterThan(0);
  });

  it('add with a dropped connection: CmsAmbiguousError, sent exactly once', async () => {
    const { port, requests } = await startServer((_b, _i, req) => drop(req));
    const { client: c } = client(port);
    const error = await c
      .add('article', { title: 'Hello' }, { idempotencyKey: 'k-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CmsAmbiguousError);
    expect(error).toMatchObject({ code: 'CMS_SYNC_AMBIGUOUS', idempotencyKey: 'k-1' });
    expect((error as Error).message).toMatch(
      /^The connection to the CMS failed after article\.add was sent \(\w+\)/,
    );
    expect(requests).toHaveLength(1);
    expect(c.stats).toMatchObject({ requests: 1, ambiguous: 1, retries: 0 });
  });

  it('upload_from_url with a dropped connection is not resent either', async () => {
    const { port, requests } = await startServer((_b, _i, req) => drop(req));
    const { client: c } = client(port);
    await expect(c.uploadFromUrl('https://files.test/a.png')).rejects.toBeInstanceOf(CmsAmbiguousError);
    expect(requests).toHaveLength(1);
  });

  it('add that times out after sending is ambiguous', async () => {
    const { port, requests } = await startServer(() => {
      /* never answers */
    });
    const { client: c } = client(port, { timeoutMs: 100 });
    await expect(c.add('article', { title: 'Hello' })).rejects.toMatchObject({ code: 'CMS_SYNC_AMBIGUOUS' });
    expect(requests).toHaveLength(1);
  });

  it('a stop (Ctrl-C) ends a request the CMS is still answering, with its reason, and is not retried', async () => {
    const { port, requests } = await startServer(() => {
      /* never answers */
    });
    const stop = new AbortController();
    const { client: c } = client(port, { signal: stop.signal, timeoutMs: 30_000 });
    const pending = c.get('article', 1).catch((e: unknown) => e);
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    stop.abort(new Error('stopped by user'));
    const error = await pending;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('stopped by user');
    expect(requests).toHaveLength(1);
  });

  it('edit with a dropped connection is retried with the same idempotency key', async () => {
    const { port, requests } = await startServer((body, i, req, res) =>
      i === 0 ? drop(req) : reply(res, 200, { status: 'success', data: { id: body.id, title: 'new' } }),
    );
    const { client: c, clock } = client(port);
    await expect(c.edit('article', 5, { title: 'new' })).resolves.toEqual({ id: 5, title: 'new' });
    expect(requests).toHaveLength(2);
    expect(requests[0]?.key).toBeDefined();
    expect(requests[1]?.key).toBe(requests[0]?.key);
    expect(clock.sleeps).toHaveLength(1);
  });

  it('add is retried after a refused connection: nothing had been sent', async () => {
    const probe = await startServer(() => {});
    const port = probe.port;
    await new Promise((resolve) => probe.server.close(resolve));
    let restarted: Awaited<ReturnType<typeof startServer>> | undefined;
    const sleeps: number[] = [];
    const { client: c } = client(port, {
      sleep: async (ms) => {
        sleeps.push(ms);
        restarted ??= await startServer(
          (_b, _i, _req, res) => reply(res, 200, { status: 'success', data: { id: 77 } }),
          port,
        );
      },
    });
    await expect(c.add('article', { title: 'Hello' })).resolves.toMatchObject({ id: 77 });
    expect(sleeps).toHaveLength(1);
    expect(restarted?.requests).toHaveLength(1);
    expect(c.stats.ambiguous).toBe(0);
  });

  it('names the refused connection when every attempt fails', async () => {
    const probe = await startServer(() => {});
    await new Promise((resolve) => probe.server.close(resolve));
    const { client: c } = client(probe.port, { retry: { maxAttempts: 3 } });
    const error = await c.add('article', { title: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CMS_SYNC_RETRY_BUDGET' });
    expect((error as Error).message).toMatch(/after 3 attempts .*\(last: ECONNREFUSED\)/);
  });
});
