import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, ok, startTestCms } from './helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
let origin: Server;
let port: number;
const seenAuthorization: Array<string | undefined> = [];

beforeAll(async () => {
  origin = createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization);
    if (req.url === '/to-localhost')
      return void res.writeHead(302, { location: `http://localhost:${port}/img.png` }).end();
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  port = (origin.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => origin.close(resolve));
});

const upload = (url: string) => ({ resource: 'media', action: 'upload_from_url', data: { url } });

describe('upload_from_url host rules', () => {
  it('refuses a host on the deny list, also as a redirect target, and keeps the others', async () => {
    const cms = await startTestCms({ uploadHosts: { deny: ['LOCALHOST', '*.internal.example'] } });
    try {
      const direct = await call(cms, upload(`http://localhost:${port}/img.png`));
      expect(errorOf(direct)).toEqual({
        status: 400,
        message:
          'data.url points at localhost, a host this server refuses to fetch from (upload deny list: LOCALHOST).',
      });
      const redirected = await call(cms, upload(`http://127.0.0.1:${port}/to-localhost`));
      expect(errorOf(redirected)).toMatchObject({
        status: 400,
        message: expect.stringMatching(
          /^The redirect from .* points at localhost, a host this server refuses/,
        ),
      });
      expect(errorOf(await call(cms, upload('http://db.internal.example/x.png'))).message).toMatch(
        /upload deny list: \*\.internal\.example/,
      );
      expect((await ok(cms, upload(`http://127.0.0.1:${port}/img.png`))).size).toBe(PNG.length);
      expect((await ok(cms, { resource: 'media', action: 'get' })).total).toBe(1);
    } finally {
      await cms.stop();
    }
  });

  it('with an allow list, refuses every host not on it', async () => {
    const cms = await startTestCms({ uploadHosts: { allow: ['127.0.0.1'] } });
    try {
      expect((await ok(cms, upload(`http://127.0.0.1:${port}/img.png`))).id).toBe(1);
      const other = await call(cms, upload(`http://localhost:${port}/img.png`));
      expect(errorOf(other)).toEqual({
        status: 400,
        message: "data.url points at localhost, which is not in this server's upload allow list (127.0.0.1).",
      });
    } finally {
      await cms.stop();
    }
  });
});

describe('credentials in source URLs', () => {
  it('stores and shows the source URL without user and password', async () => {
    const cms = await startTestCms();
    try {
      const media = await ok(cms, upload(`http://someone:s3cret-pass@127.0.0.1:${port}/img.png`));
      expect(media.source_url).toBe(`http://127.0.0.1:${port}/img.png`);
      const page = await (await fetch(`${cms.url}/view/media/${media.id}`)).text();
      expect(page).not.toContain('s3cret-pass');
      expect(page).not.toContain('someone');
      const listed = await ok(cms, { resource: 'media', action: 'get', id: media.id });
      expect(JSON.stringify(listed)).not.toContain('s3cret-pass');
    } finally {
      await cms.stop();
    }
  });
});
