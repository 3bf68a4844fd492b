import { RESOURCES, type Resource } from '../../resources.js';
import { SCHEMAS } from '../records/schema.js';
import type { RecordStore } from '../storage/record-store.js';
import { escapeHtml, layout } from './html.js';
import { renderBody } from './render-body.js';
import type { SourceFiles } from './source-files.js';

/** What the pages show beside what the store holds. */
export interface PageContext {
  /** A status value -> its name (the syncing project's status map), shown as `draft (0)`. */
  statusNames: ReadonlyMap<number, string>;
  /** The file each record came from, when a project syncing here says so. */
  sources: SourceFiles;
}

/** The status map cms-sync uses unless a project's config says otherwise. */
export const DEFAULT_STATUS_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'draft'],
  [1, 'published'],
]);

const BODY_FONT = 'font:15px/1.5 system-ui,sans-serif';

/** Records listed per resource on one page; more are reached with `?offset=`. */
const PAGE_SIZE = 100;

/** `/`: how many records each resource holds, and the first of each. */
export function indexPage(store: RecordStore, context: PageContext): string {
  const counts = RESOURCES.map((r) => `<li><b>${store.count(r)}</b><a href="/view/${r}">${r}</a></li>`).join(
    '',
  );
  const sections = RESOURCES.map(
    (r) =>
      `<h2 id="${r}">${r} <span class="muted">(${store.count(r)})</span></h2>` +
      recordTable(store, r, 0, 20, context),
  ).join('\n');
  return layout('Local CMS', `<h1>What this CMS holds</h1><ul class="counts">${counts}</ul>${sections}`);
}

/** `/view/<resource>`: every record of one resource, a page at a time. */
export function listPage(
  store: RecordStore,
  resource: Resource,
  offset: number,
  context: PageContext,
): string {
  const total = store.count(resource);
  const nav = [
    offset > 0 ? `<a href="/view/${resource}?offset=${Math.max(0, offset - PAGE_SIZE)}">← previous</a>` : '',
    offset + PAGE_SIZE < total ? `<a href="/view/${resource}?offset=${offset + PAGE_SIZE}">next →</a>` : '',
  ].join(' ');
  return layout(
    `${resource} — Local CMS`,
    `<h1>${resource} <span ` +
      `class="muted">(${total})</span></h1>${recordTable(store, resource, offset, PAGE_SIZE, context)}<p>${nav}</p>`,
  );
}

function recordTable(
  store: RecordStore,
  resource: Resource,
  offset: number,
  size: number,
  context: PageContext,
): string {
  const records = store.list(resource);
  if (records.length === 0) return '<p class="muted">No records.</p>';
  const label = SCHEMAS[resource].label;
  const fileOf = context.sources.snapshot();
  const rows = records
    .slice(offset, offset + size)
    .map(
      (r) =>
        `<tr><td><a ` +
        `href="/view/${resource}/${r.id}">${r.id}</a></td><td>${escapeHtml(r[label] ?? r.filename)}</td>` +
        `<td>${escapeHtml(r.slug)}</td><td>${statusCell(r.status, context)}</td>` +
        `<td>${sourceLink(resource, r.id, fileOf)}</td></tr>`,
    )
    .join('');
  const more =
    records.length > offset + size && size < PAGE_SIZE
      ? `<p><a href="/view/${resource}">all ${records.length} →</a></p>`
      : '';
  return (
    `<table><thead><tr><th>id</th><th>${label}</th><th>slug</th><th>status</th><th>source</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>${more}`
  );
}

/** `/view/<resource>/<id>`: every field, and for article/page the body as it would show. */
export function recordPage(
  store: RecordStore,
  resource: Resource,
  id: number,
  context: PageContext,
): string | undefined {
  const record = store.get(resource, id);
  if (!record) return undefined;
  const rows = Object.entries(record)
    .map(
      ([name, value]) =>
        `<tr><th>${escapeHtml(name)}</th><td class="json">` +
        (name === 'status'
          ? statusCell(value, context)
          : escapeHtml(typeof value === 'string' ? value : JSON.stringify(value))) +
        `</td></tr>`,
    )
    .join('');
  const file = context.sources.fileOf(resource, id);
  const source = file
    ? `<p class="muted">from <a href="/source/${resource}/${id}">${escapeHtml(file)}</a></p>`
    : '';
  const htmlField = resource === 'article' ? 'body' : resource === 'page' ? 'content' : undefined;
  let rendered = '';
  if (htmlField && typeof record[htmlField] === 'string') {
    const html = renderBody(record[htmlField] as string, (mediaId) => store.get('media', mediaId));
    // srcdoc + an empty sandbox: shown as HTML, with no script and no access to this page.
    rendered =
      `<h2>${htmlField} as rendered</h2><iframe class="body" sandbox="allow-same-origin" ` +
      `srcdoc="${escapeHtml(`<!doctype html><meta charset="utf-8"><body style="${BODY_FONT}">${html}`)}">` +
      `</iframe>`;
  }
  if (resource === 'media' && typeof record.mime === 'string' && record.mime.startsWith('image/')) {
    const title = typeof record.title === 'string' ? ` title="${escapeHtml(record.title)}"` : '';
    rendered =
      `<h2>preview</h2><figure><img ` +
      `src="/media/${record.id}/${escapeHtml(encodeURIComponent(String(record.filename)))}" ` +
      `alt="${escapeHtml(record.alt ?? '')}"${title} style="max-width:100%"><figcaption>` +
      `<b>alt</b> ${record.alt ? escapeHtml(record.alt) : '<span class="muted">(none)</span>'} · ` +
      `<b>title</b> ${record.title ? escapeHtml(record.title) : '<span class="muted">(none)</span>'}` +
      `</figcaption></figure>`;
  }
  // A reader comes to see the article: the rendered body first, the raw fields below it.
  const title = String(record[SCHEMAS[resource].label] ?? record.filename ?? `${resource} ${id}`);
  return layout(
    `${title} — Local CMS`,
    `<p><a href="/view/${resource}">← ${resource}</a></p><h1>${escapeHtml(title)} <span class="muted">${resource} ` +
      `${id}</span></h1>${source}${rendered}<h2>fields</h2><table>${rows}</table>`,
  );
}

/** `/source/<resource>/<id>`: the Markdown file the record came from, as text. */
export function sourcePage(
  store: RecordStore,
  resource: Resource,
  id: number,
  context: PageContext,
): string | undefined {
  const record = store.get(resource, id);
  const source = record ? context.sources.read(resource, id) : undefined;
  if (!record || !source) return undefined;
  return layout(
    `${source.file} — Local CMS`,
    `<p><a href="/view/${resource}/${id}">← ${resource} ${id}</a></p><h1>${escapeHtml(source.file)}</h1>` +
      `<pre class="source">${escapeHtml(source.text)}</pre>`,
  );
}

function statusCell(value: unknown, context: PageContext): string {
  const name = typeof value === 'number' ? context.statusNames.get(value) : undefined;
  return name ? `${escapeHtml(name)} <span class="muted">(${value})</span>` : escapeHtml(value);
}

function sourceLink(
  resource: Resource,
  id: number,
  fileOf: (resource: string, id: number) => string | undefined,
): string {
  const file = fileOf(resource, id);
  return file ? `<a href="/source/${resource}/${id}">${escapeHtml(file)}</a>` : '';
}
