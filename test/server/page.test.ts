import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startTestCms } from './helpers.js';

let cms: Awaited<ReturnType<typeof startTestCms>>;
let origin: Server;
const media: Record<string, any> = {};

beforeAll(async () => {
  origin = createServer((req, res) => {
    const type = { '/a.png': 'image/png', '/clip.mp4': 'video/mp4', '/doc.pdf': 'application/pdf' }[
      req.url ?? ''
    ];
    res.writeHead(type ? 200 : 404, { 'content-type': type ?? 'text/plain' }).end('bytes');
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  cms = await startTestCms();
  for (const name of ['a.png', 'clip.mp4', 'doc.pdf']) {
    media[name] = await ok(cms, {
      resource: 'media',
      action: 'upload_from_url',
      data: { url: `${base}/${name}`, title: `<b>${name}</b>`, alt: 'alt "quoted"' },
    });
  }
});
afterAll(async () => {
  await cms.stop();
  await new Promise((resolve) => origin.close(resolve));
});

const block = (id: number, size = 'medium') =>
  `<dynamic-block data-id="${id}" data-type="media" data-size="${size}" contenteditable="false"></dynamic-block>`;

async function page(path: string): Promise<{ status: number; type: string | null; html: string }> {
  const response = await fetch(`${cms.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

describe('the read-only HTML view', () => {
  it('shows counts and records per resource at /, escaped, without a token', async () => {
    await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'Tom & <Jerry>', slug: 'tom-"jerry"', status: 1 },
    });
    await ok(cms, { resource: 'category', action: 'add', data: { name: 'News', slug: 'news' } });
    const { status, type, html } = await page('/');
    expect(status).toBe(200);
    expect(type).toBe('text/html; charset=utf-8');
    expect(html).toContain('<li><b>1</b><a href="/view/article">article</a></li>');
    expect(html).toContain('<li><b>3</b><a href="/view/media">media</a></li>');
    expect(html).toContain('<li><b>0</b><a href="/view/page">page</a></li>');
    expect(html).toContain(
      '<tr><td><a href="/view/article/1">1</a></td><td>Tom &amp; ' +
        '&lt;Jerry&gt;</td><td>tom-&quot;jerry&quot;</td><td>published <span ' +
        'class="muted">(1)</span></td><td></td></tr>',
    );
    expect(html).toContain(
      '<tr><td><a href="/view/category/1">1</a></td><td>News</td><td>news</td><td></td><td></td></tr>',
    );
    expect(html).not.toContain('<Jerry>');
  });

  it('shows a record with its fields at /view/<resource>/<id>', async () => {
    const user = await ok(cms, {
      resource: 'user',
      action: 'add',
      data: { name: 'Eve <script>alert(1)</script>', email: 'eve@example.com' },
    });
    const { status, html } = await page(`/view/user/${user.id}`);
    expect(status).toBe(200);
    expect(html).toContain('<tr><th>email</th><td class="json">eve@example.com</td></tr>');
    expect(html).toContain('Eve &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert');
  });

  it('renders an article body with each dynamic-block as the media, in a sandboxed iframe', async () => {
    const blocks = [
      block(media['a.png'].id, 'small'),
      block(media['clip.mp4'].id, 'large'),
      block(media['doc.pdf'].id),
    ];
    const body = `<p>Look:</p>${blocks.join('')}<script>alert(1)</script>`;
    const article = await ok(cms, {
      resource: 'article',
      action: 'add',
      data: { title: 'With media', body },
    });
    const { html } = await page(`/view/article/${article.id}`);
    // Sandboxed without allow-scripts: nothing in a body runs; same-origin so the page can size it.
    const srcdoc = /<iframe class="body" sandbox="allow-same-origin" srcdoc="([^"]*)"><\/iframe>/.exec(html);
    expect(srcdoc).not.toBeNull();
    const inner = srcdoc![1]!
      .replaceAll('&quot;', '"')
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&');
    expect(inner).toContain(
      `<img src="/media/${media['a.png'].id}/a.png" alt="alt &quot;quoted&quot;" title="&lt;b&gt;a.png&lt;/b&gt;" ` +
        'style="max-width:100%;width:240px">',
    );
    expect(inner).toContain(
      `<video src="/media/${media['clip.mp4'].id}/clip.mp4" controls style="max-width:100%;width:960px"></video>`,
    );
    expect(inner).toContain(
      `<a href="/media/${media['doc.pdf'].id}/doc.pdf" target="_blank" rel="noopener">&lt;b&gt;doc.pdf&lt;/b&gt;</a>`,
    );
    expect(inner).not.toContain('<dynamic-block');
    // The body's own script is inside the sandboxed srcdoc (escaped in the page), never in the page itself.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).not.toContain('<script>alert');
    const served = await fetch(`${cms.url}/media/${media['a.png'].id}/a.png`);
    expect(served.headers.get('content-type')).toBe('image/png');
  });

  it('lists a resource page by page at /view/<resource>', async () => {
    for (let i = 0; i < 105; i++)
      await ok(cms, { resource: 'breaking', action: 'add', data: { title: `Flash ${i}` } });
    const first = await page('/view/breaking');
    expect(first.html).toContain('<h1>breaking <span class="muted">(105)</span></h1>');
    expect(first.html).toContain('<a href="/view/breaking?offset=100">next →</a>');
    const second = await page('/view/breaking?offset=100');
    expect(second.html.match(/<tr><td>/g)).toHaveLength(5);
    expect(second.html).toContain('<a href="/view/breaking?offset=0">← previous</a>');
  });

  it('answers an unknown record or resource with 404', async () => {
    expect((await page('/view/article/999')).status).toBe(404);
    expect((await page('/view/posts')).status).toBe(404);
  });
});
