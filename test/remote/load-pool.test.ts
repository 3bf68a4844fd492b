import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadPool } from '../../src/remote/load-pool.js';

describe('loading undici', () => {
  // The client loads only Pool and request from undici's own files (a no-op run is ~100 ms
  // faster). If an undici update moves them it still works, through the whole package: this
  // test is what tells us to update the paths.
  it('finds Pool and request in their own files, and they make a request', async () => {
    const loaded = loadPool();
    expect(loaded.direct).toBe(true);

    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(JSON.stringify({ status: 'success', data: { method: req.method } })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pool = new loaded.Pool(origin, { connections: 1 });
    try {
      const response = await loaded.request(pool, { origin, path: '/functions/api', method: 'POST', body: '{}' });
      expect(response.statusCode).toBe(200);
      expect(await response.body.json()).toEqual({ status: 'success', data: { method: 'POST' } });
    } finally {
      await pool.close();
      server.close();
    }
  });
});
