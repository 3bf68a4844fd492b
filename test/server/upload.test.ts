import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, errorOf, ok, startTestCms } from './helpers.js';

// A small valid PNG (1x1) and a fake PDF; the server only stores bytes, so any bytes do.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
const PDF = Buffer.from('%PDF-1.4\n% test\n');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let origin: Server;
let originUrl: string;
let streamAborted: Promise<boolean>;
let cms: Awaited<ReturnType<typeof startTestCms>>;

beforeAll(async () => {
  let markAborted: (v: boolean) => void = () => {};
  streamAborted = new Promise((resolve) => (markAborted = resolve));
  origin = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/img/photo%20one.png')
      return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (path === '/img/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (path === '/noext')
      return void res.writeHead(200, { 'content-type': 'image/png; charset=binary' }).end(PNG);
    if (path === '/octet/doc.pdf')
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PDF);
    const hop = /^\/redirect\/(\d+)$/.exec(path);
    if (hop) {
      const left = Number(hop[1]);
      return void res
        .writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/img/photo.png' })
        .end();
    }
    if (path === '/to-file') return void res.writeHead(301, { location: 'file:///etc/passwd' }).end();
    if (path === '/missing.png') return void res.writeHead(404).end('not here');
    if (path === '/broken.png') return void res.writeHead(503).end('down');
    if (path === '/huge-declared.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(60 * 1024 * 1024) });
      return void res.write(PNG);
    }
    if (path === '/huge-stream.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.on('close', () => markAborted(!res.writableFinished));
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 8 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (path === '/slow.png') return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  cms = await startTestCms({ downloadLimits: { maxBytes: 1024 * 1024, timeoutMs: 500 } });
});

afterAll(async () => {
  await cms.stop();
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
});

const upload = (data: Record<string, unknown>) =>
  call(cms, { resource: 'media', action: 'upload_from_url', data });

describe('upload_from_url', () => {
  it('fetches the URL, returns the media record and serves the bytes at its url', async () => {
    const reply = await upload({ url: `${originUrl}/img/photo.png`, title: 'A photo', alt: 'a red dot' });
    expect(reply.status).toBe(200);
    const media = (reply.body as { data: any }).data;
    expect(media).toEqual({
      id: 1,
      url: `${cms.url}/media/1/photo.png`,
      source_url: `${originUrl}/img/photo.png`,
      filename: 'photo.png',
      mime: 'image/png',
      size: PNG.length,
      sha256: sha(PNG),
      title: 'A photo',
      alt: 'a red dot',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const served = await fetch(media.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect(await ok(cms, { resource: 'media', action: 'get', id: 1 })).toEqual(media);
    expect(await readdir(join(cms.dataDir, 'media', '1'))).toEqual(['photo.png']);
  });

  it('names files safely and takes the MIME type from the origin, else the extension', async () => {
    const spaced = await ok(cms, {
      resource: 'media',
      action: 'upload_from_url',
      data: { url: `${originUrl}/img/photo%20one.png` },
    });
    expect(spaced).toMatchObject({ filename: 'photo-one.png', title: null, alt: null });
    expect(
      await ok(cms, { resource: 'media', action: 'upload_from_url', data: { url: `${originUrl}/noext` } }),
    ).toMatchObject({ filename: 'noext.png', mime: 'image/png' });
    const pdf = await ok(cms, {
      resource: 'media',
      action: 'upload_from_url',
      data: { url: `${originUrl}/octet/doc.pdf` },
    });
    expect(pdf).toMatchObject({ filename: 'doc.pdf', mime: 'application/pdf', size: PDF.length });
    expect((await fetch(pdf.url)).headers.get('content-type')).toBe('application/pdf');
  });

  it('follows up to 5 redirects and refuses a sixth', async () => {
    expect(
      await ok(cms, {
        resource: 'media',
        action: 'upload_from_url',
        data: { url: `${originUrl}/redirect/5` },
      }),
    ).toMatchObject({
      filename: '5.png',
      sha256: sha(PNG),
      source_url: `${originUrl}/redirect/5`,
    });
    expect(errorOf(await upload({ url: `${originUrl}/redirect/6` }))).toEqual({
      status: 400,
      message: `${originUrl}/redirect/6 redirects more than 5 times.`,
    });
  });

  it('refuses file:, data: and other schemes, also behind a redirect', async () => {
    expect(errorOf(await upload({ url: 'file:///etc/passwd' }))).toEqual({
      status: 400,
      message:
        'data.url must use http or https; file: URLs cannot be uploaded. Serve the file over HTTP and pass that URL.',
    });
    expect(errorOf(await upload({ url: 'data:image/png;base64,AAAA' })).message).toMatch(
      /^data\.url must use http or https; data: URLs cannot be uploaded/,
    );
    expect(errorOf(await upload({ url: 'not a url' }))).toEqual({
      status: 400,
      message: 'data.url must be an absolute http or https URL, got "not a url".',
    });
    expect(errorOf(await upload({ url: `${originUrl}/to-file` }))).toEqual({
      status: 400,
      message:
        `The redirect from ${originUrl}/to-file must use http or https; file: URLs cannot be uploaded. Serve ` +
        `the file over HTTP and pass that URL.`,
    });
  });

  it('reports a non-2xx answer from the origin: 4xx as 400, 5xx as 502', async () => {
    expect(errorOf(await upload({ url: `${originUrl}/missing.png` }))).toEqual({
      status: 400,
      message: `Could not fetch ${originUrl}/missing.png: the server answered HTTP 404.`,
    });
    expect(errorOf(await upload({ url: `${originUrl}/broken.png` }))).toEqual({
      status: 502,
      message: `Could not fetch ${originUrl}/broken.png: the server answered HTTP 503.`,
    });
  });

  it('refuses a file over the size cap, from its Content-Length or by aborting the download', async () => {
    expect(errorOf(await upload({ url: `${originUrl}/huge-declared.png` }))).toEqual({
      status: 400,
      message: `The file at ${originUrl}/huge-declared.png is larger than 1 MiB, the upload limit.`,
    });
    expect(errorOf(await upload({ url: `${originUrl}/huge-stream.png` }))).toEqual({
      status: 400,
      message: `The file at ${originUrl}/huge-stream.png is larger than 1 MiB, the upload limit.`,
    });
    expect(await streamAborted).toBe(true);
    expect(await readdir(join(cms.dataDir, 'media', '.incoming'))).toEqual([]);
  });

  it('gives up on a slow origin after the timeout with 504', async () => {
    expect(errorOf(await upload({ url: `${originUrl}/slow.png` }))).toEqual({
      status: 504,
      message: `Fetching ${originUrl}/slow.png took longer than 0.5 s.`,
    });
  });

  it('checks its data', async () => {
    expect(errorOf(await upload({}))).toEqual({
      status: 400,
      message: 'data.url is required: the http(s) URL to fetch the file from, got undefined (undefined).',
    });
    expect(errorOf(await upload({ url: `${originUrl}/img/photo.png`, caption: 'x' }))).toEqual({
      status: 400,
      message: 'Unknown field "caption" in upload_from_url data. Allowed: url, title, alt.',
    });
    expect(errorOf(await upload({ url: `${originUrl}/img/photo.png`, alt: 3 }))).toEqual({
      status: 400,
      message: 'data.alt must be a string, got 3 (number).',
    });
  });

  it('media get lists media; delete removes the record and the file', async () => {
    const media = await ok(cms, {
      resource: 'media',
      action: 'upload_from_url',
      data: { url: `${originUrl}/img/photo.png` },
    });
    const list = await ok(cms, {
      resource: 'media',
      action: 'get',
      filters: { sha256: sha(PNG) },
      fields: ['id'],
    });
    expect(list.items).toContainEqual({ id: media.id });
    expect(await ok(cms, { resource: 'media', action: 'delete', id: media.id })).toEqual({
      id: media.id,
      deleted: true,
    });
    expect((await fetch(media.url)).status).toBe(404);
    expect(await readdir(join(cms.dataDir, 'media'))).not.toContain(String(media.id));
  });

  it('serves media only at its own file name', async () => {
    expect((await fetch(`${cms.url}/media/1/other.png`)).status).toBe(404);
    expect((await fetch(`${cms.url}/media/1/..%2F..%2Ftoken`)).status).toBe(404);
  });
});
