import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyStats, logWrite, WRITE_LOG_LIMIT } from '../../src/server/stats.js';
import { call, ok, startTestCms, TOKEN } from './helpers.js';

type TestCms = Awaited<ReturnType<typeof startTestCms>>;
const servers: TestCms[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((cms) => cms.stop()));
});
async function start(options: Parameters<typeof startTestCms>[0] = {}): Promise<TestCms & { port: number }> {
  const cms = await startTestCms(options);
  servers.push(cms);
  return { ...cms, port: Number(new URL(cms.url).port) };
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {});
    socket.once('close', () => resolve(text));
  });
}

/** Sends raw bytes and returns the status and the parsed JSON body of the answer. */
async function raw(port: number, request: string): Promise<{ status: number; body: unknown }> {
  const socket = await open(port);
  const answer = readAll(socket);
  socket.end(request);
  return parseResponse(await answer);
}

function parseResponse(text: string): { status: number; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    body: body === '' ? undefined : JSON.parse(body),
  };
}

describe('the stats endpoints need the token; the write log is bounded', () => {
  it('answers /__cms/stats and /__cms/stats/reset without the token with 401, and resets nothing', async () => {
    const cms = await start();
    await ok(cms, { resource: 'user', action: 'add', data: { name: 'A' } });
    const read = await fetch(`${cms.url}/__cms/stats`);
    expect(read.status).toBe(401);
    expect(await read.json()).toEqual({
      status: 'error',
      message: 'Missing API token: send the header "Authorization: Bearer <API_TOKEN>".',
    });
    const reset = await fetch(`${cms.url}/__cms/stats/reset`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong' },
    });
    expect(reset.status).toBe(401);
    expect(cms.stats().writes).toBe(1);
    const allowed = await fetch(`${cms.url}/__cms/stats`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await allowed.json()) as { data: { writes: number } }).data.writes).toBe(1);
  });

  it('keeps only the latest entries of the write log', () => {
    const stats = emptyStats();
    for (let id = 1; id <= 25; id++) logWrite(stats, { at: id, resource: 'article', action: 'add', id }, 10);
    expect(stats.writeLog.map((entry) => entry.id)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    for (let id = 1; id <= WRITE_LOG_LIMIT + 5; id++)
      logWrite(stats, { at: id, resource: 'article', action: 'add', id });
    expect(stats.writeLog).toHaveLength(WRITE_LOG_LIMIT);
    expect(stats.writeLog[0]?.id).toBe(6);
  });
});

describe('the Host header', () => {
  it('accepts 127.0.0.1, localhost and [::1] with the port, in any letter case', async () => {
    const cms = await start();
    for (const host of [
      `127.0.0.1:${cms.port}`,
      `localhost:${cms.port}`,
      `LocalHost:${cms.port}`,
      `[::1]:${cms.port}`,
    ]) {
      const reply = await raw(
        cms.port,
        `GET /nothing HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(reply.status, host).toBe(404);
    }
  });

  it('refuses any other host (DNS rebinding), a wrong port and a missing Host with 403 in the envelope', async () => {
    const cms = await start();
    const body = JSON.stringify({ resource: 'article', action: 'get' });
    const api = (host: string) =>
      `POST /functions/api HTTP/1.1\r\n${host}Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    for (const host of [
      'Host: evil.example\r\n',
      `Host: evil.example:${cms.port}\r\n`,
      `Host: 127.0.0.1:${cms.port + 1}\r\n`,
      '',
    ]) {
      const reply = await raw(cms.port, api(host));
      expect(reply.status, host).toBe(403);
      expect(reply.body, host).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/Host header/),
      });
    }
    const page = await raw(
      cms.port,
      `GET / HTTP/1.1\r\nHost: rebound.example:${cms.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(page.status).toBe(403);
    expect(page.body).toEqual({
      status: 'error',
      message:
        `The Host header "rebound.example:${cms.port}" does not name this server. ` +
        `Use http://127.0.0.1:${cms.port} or http://localhost:${cms.port}, or allow that name with --allow-host.`,
    });
  });

  it('accepts the names given in allowedHosts', async () => {
    const cms = await start({ allowedHosts: ['cms.test'] });
    expect(
      (await raw(cms.port, `GET /x HTTP/1.1\r\nHost: cms.test:${cms.port}\r\nConnection: close\r\n\r\n`))
        .status,
    ).toBe(404);
    expect(
      (await raw(cms.port, `GET /x HTTP/1.1\r\nHost: other.test:${cms.port}\r\nConnection: close\r\n\r\n`))
        .status,
    ).toBe(403);
  });
});

describe('slow and numerous clients', () => {
  it('cuts off a client that sends its headers a byte at a time, with 408 in the envelope', async () => {
    const cms = await start({ timeouts: { headersMs: 300, requestMs: 600, checkIntervalMs: 50 } });
    const socket = await open(cms.port);
    const answer = readAll(socket);
    const request = `GET / HTTP/1.1\r\nHost: 127.0.0.1:${cms.port}\r\nX-Slow: ${'a'.repeat(10_000)}`;
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < request.length) socket.write(request[sent++]!);
    }, 20);
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, 5000, 'still connected after 5 s'));
    try {
      const outcome = await Promise.race([answer, timeout]);
      expect(outcome).not.toBe('still connected after 5 s');
      const reply = parseResponse(outcome);
      expect(reply.status).toBe(408);
      expect(reply.body).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/^The request was not received in time/),
      });
      expect(sent).toBeLessThan(request.length);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });

  it('closes connections beyond maxConnections at once and keeps serving the others', async () => {
    const cms = await start({ maxConnections: 2 });
    const held = [await open(cms.port), await open(cms.port)];
    try {
      const third = await open(cms.port);
      const closed = await Promise.race([
        readAll(third),
        new Promise((resolve) => setTimeout(resolve, 3000, 'open')),
      ]);
      expect(closed).toBe('');
      const first = held[0]!;
      const answer = readAll(first);
      first.end(`GET /nothing HTTP/1.1\r\nHost: 127.0.0.1:${cms.port}\r\nConnection: close\r\n\r\n`);
      expect(parseResponse(await answer).status).toBe(404);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe('every error in the envelope', () => {
  it('answers malformed HTTP, oversize headers, 404, 405, 413 and bad JSON with the JSON envelope', async () => {
    const cms = await start();
    const host = `Host: 127.0.0.1:${cms.port}\r\n`;
    const auth = `Authorization: Bearer ${TOKEN}\r\n`;
    const api = `POST /functions/api HTTP/1.1\r\n${host}${auth}Content-Type: application/json\r\n`;
    const cases: Array<[string, number]> = [
      ['GARBAGE\r\n\r\n', 400],
      [`GET / HTTP/1.1\r\n${host}X-Big: ${'b'.repeat(20_000)}\r\n\r\n`, 431],
      [`GET /nowhere HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, 404],
      [`PUT /functions/api HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, 405],
      [`GET /%ZZ HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, 404],
      [`${api}Content-Length: 9999999999\r\nConnection: close\r\n\r\n`, 413],
      [`${api}Content-Length: 5\r\nConnection: close\r\n\r\n{nope`, 400],
      [
        `POST /functions/api HTTP/1.1\r\n${host}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
      ],
      [`GET / HTTP/1.1\r\n${host}Expect: something-else\r\nConnection: close\r\n\r\n`, 417],
    ];
    for (const [request, status] of cases) {
      const reply = await raw(cms.port, request);
      expect(reply.status, request.slice(0, 40)).toBe(status);
      expect(reply.body, request.slice(0, 40)).toMatchObject({
        status: 'error',
        message: expect.any(String),
      });
    }
    // And the server still answers afterwards.
    expect((await call(cms, { resource: 'article', action: 'get' })).status).toBe(200);
  });
});
