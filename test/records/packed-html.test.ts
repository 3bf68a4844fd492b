import { describe, expect, it } from 'vitest';
import type { MediaSource } from '../../src/media/resolve-media.js';
import { sourceDigests } from '../../src/plan/digest.js';
import { resolveFields } from '../../src/plan/payload.js';
import type { DesiredRecord } from '../../src/records/build-record.js';
import { packHtml } from '../../src/records/packed-html.js';
import { parseDocument } from '../../src/source/read-document.js';
import { resolveConfig } from '../../src/config/load-config.js';

const config = resolveConfig({}, { projectDir: '/project', env: {} });
const map: MediaSource = {
  kind: 'url',
  url: 'https://example.com/map.png',
  identity: 'url:https://example.com/map.png',
};
const html =
  `<h2>Vote à l’assemblée — ` +
  `“close”</h2>\n<p>${'The council met on Tuesday. '.repeat(200)}</p>\n<dynamic-block data-id="cms-sync-media:0" ` +
  `data-size="large"></dynamic-block>`;

function article(body: DesiredRecord['html']): DesiredRecord {
  return {
    key: 'article/vote',
    resource: 'article',
    slug: 'vote',
    file: 'content/articles/vote.md',
    values: { slug: 'vote', title: 'Vote' },
    ...(body ? { html: body } : {}),
  };
}

describe('bodies held deflated while a cold sync builds every record', () => {
  it('gives back the rendered HTML exactly, non-ASCII text included', () => {
    const packed = packHtml('body', html, [map]);
    expect(packed.template).toBe(html);
    expect(packed.media).toEqual([map]);
  });

  it('digests a packed body as it did the plain text, so records written before read as unchanged', () => {
    const plain = article({ field: 'body', template: html, media: [map] });
    const packed = article(packHtml('body', html, [map]));
    expect(sourceDigests(packed)).toEqual(sourceDigests(plain));
    // And the digest changes with the body or its images.
    expect(sourceDigests(article(packHtml('body', `${html} `, [map]))).body).not.toBe(
      sourceDigests(plain).body,
    );
    expect(sourceDigests(article(packHtml('body', html, []))).body).not.toBe(sourceDigests(plain).body);
  });

  it('sends the body with its media ids bound', () => {
    const { data } = resolveFields(
      article(packHtml('body', html, [map])),
      ['body'],
      { categoryIdBySlug: new Map(), mediaIdByIdentity: new Map([[map.identity, 42]]) },
      config.resources.article,
    );
    expect(data.body).toBe(html.replace('cms-sync-media:0', '42'));
  });

  it('keeps a scanned document’s Markdown body and gives it back on each read', () => {
    const text = `---\ntitle: Vote\n---\n\nLa séance a duré **trois heures**.\r\n${'Une ligne. '.repeat(300)}\n`;
    const doc = parseDocument(Buffer.from(text), {
      file: 'content/articles/vote.md',
      absPath: '/project/content/articles/vote.md',
      resource: 'article',
    });
    if ('problems' in doc) throw new Error('expected a document');
    const body = `\nLa séance a duré **trois heures**.\n${'Une ligne. '.repeat(300)}\n`;
    expect(doc.body).toBe(body);
    expect(doc.body).toBe(body);
  });
});
