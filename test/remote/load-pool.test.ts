import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { exchange } from '../../src/remote/exchange.js';
import { loadPool } from '../../src/remote/load-pool.js';

describe('loading undici', () => {
  // The client loads only Pool and request from undici's own files (a no-op run is
  // faster: see load-pool.ts). If an undici update moves them, the client still works through the whole package:
  // this test is what tells us to update the paths.
  it("finds Pool and request in their own files, and the client's exchange goes through them", async () => {
    const loaded = loadPool();
    expect(loaded.direct).toBe(true);

    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-seen': req.headers.authorization ?? '' })
          .end(JSON.stringify({ status: 'success', data: JSON.parse(body) })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pool = new loaded.Pool(origin, { connections: 1 });
    try {
      const ctx = {
        dispatcher: pool,
        request: loaded.request,
        origin,
        path: '/functions/api',
        token: 't0ken',
        timeoutMs: 5000,
        idempotencyHeader: false as const,
        now: Date.now,
      };
      const result = await exchange(
        ctx,
        { resource: 'article', action: 'get', limit: 1 },
        undefined,
        undefined,
      );
      expect(result.statusCode).toBe(200);
      expect(result.headers['x-seen']).toBe('Bearer t0ken');
      expect(JSON.parse(result.text)).toEqual({
        status: 'success',
        data: { resource: 'article', action: 'get', limit: 1 },
      });
    } finally {
      await pool.close();
      server.close();
    }
  });
});
