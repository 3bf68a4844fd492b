import { rm } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import type { RecordResource, RemoteRecord, Resource } from '../../resources.js';
import { ApiError } from '../http/envelope.js';
import { download, shown, type DownloadLimits } from '../media/download.js';
import type { UploadHostRules } from '../media/host-rules.js';
import { editMedia } from '../media/edit-media.js';
import type { MediaLibrary } from '../media/media-library.js';
import { scanDynamicBlocks } from '../records/dynamic-blocks.js';
import { buildRecord, describe, type WriteContext } from '../records/validate.js';
import type { RecordStore } from '../storage/record-store.js';
import type { ParsedRequest } from './parse-request.js';
import { runGet } from './query.js';

export interface ApiContext {
  store: RecordStore;
  media: MediaLibrary;
  /** Public base URL of this server, for media URLs. */
  baseUrl: () => string;
  normalizeHtml: boolean;
  dispatcher: Dispatcher;
  downloadLimits: DownloadLimits;
  uploadHosts: UploadHostRules;
  now: () => Date;
}

export interface ActionResult {
  data: unknown;
  /** Set when the action changed the CMS (and that change is durable). */
  wrote?: { resource: Resource; action: string; id: number };
}

/** Carries out one parsed request. Every write validates and applies inside the store's queue. */
export async function dispatch(request: ParsedRequest, ctx: ApiContext): Promise<ActionResult> {
  const { resource, action } = request;
  if (action === 'get') {
    if (request.data !== undefined)
      throw new ApiError(400, '"data" is not used by get; put conditions in "filters".');
    return { data: runGet(resource, ctx.store, request) };
  }
  if (resource === 'media') {
    if (action === 'add') {
      throw new ApiError(
        400,
        `media records cannot be made with ${action}: use action "upload_from_url" with data: { url, title?, alt? }.`,
      );
    }
    if (action === 'edit') {
      const id = requireId(request, 'edit');
      const record = await editMedia(ctx.store, id, requireData(request, 'edit'), describe);
      return { data: record, wrote: { resource: 'media', action: 'edit', id } };
    }
    if (action === 'upload_from_url') return uploadFromUrl(request, ctx);
    return remove('media', request, ctx);
  }
  switch (action) {
    case 'add':
      return add(resource, request, ctx);
    case 'edit':
      return edit(resource, request, ctx);
    case 'delete':
      return remove(resource, request, ctx);
    default:
      throw new ApiError(
        400,
        `Action "${action}" exists only for media; ${resource} supports get, add, edit and delete.`,
      );
  }
}

function writeContext(ctx: ApiContext): WriteContext {
  return {
    exists: (resource, id) => ctx.store.get(resource, id) !== undefined,
    get: (resource, id) => ctx.store.get(resource, id),
    normalizeHtml: ctx.normalizeHtml,
    now: ctx.now(),
  };
}

async function add(resource: RecordResource, request: ParsedRequest, ctx: ApiContext): Promise<ActionResult> {
  if (request.id !== undefined)
    throw new ApiError(400, '"id" is not allowed in add: the server assigns ids.');
  const data = requireData(request, 'add');
  const record = await ctx.store.exclusive(async () => {
    const fields = buildRecord(resource, data, undefined, writeContext(ctx));
    return ctx.store.insert(resource, () => fields);
  });
  return { data: record, wrote: { resource, action: 'add', id: record.id } };
}

async function edit(
  resource: RecordResource,
  request: ParsedRequest,
  ctx: ApiContext,
): Promise<ActionResult> {
  const id = requireId(request, 'edit');
  const data = requireData(request, 'edit');
  if (Object.keys(data).length === 0)
    throw new ApiError(400, '"data" of edit is empty: send the fields to change.');
  const record = await ctx.store.exclusive(async () => {
    const previous = ctx.store.get(resource, id);
    if (!previous) throw new ApiError(404, `${resource} ${id} does not exist.`);
    const updated: RemoteRecord = { id, ...buildRecord(resource, data, previous, writeContext(ctx)) };
    ctx.store.replace(resource, updated);
    return updated;
  });
  return { data: record, wrote: { resource, action: 'edit', id } };
}

async function remove(resource: Resource, request: ParsedRequest, ctx: ApiContext): Promise<ActionResult> {
  const id = requireId(request, 'delete');
  if (request.data !== undefined) throw new ApiError(400, '"data" is not used by delete; send only "id".');
  await ctx.store.exclusive(async () => {
    if (!ctx.store.get(resource, id)) throw new ApiError(404, `${resource} ${id} does not exist.`);
    const users = usersOf(resource, id, ctx.store);
    if (users.length > 0) {
      const shownUsers =
        users.slice(0, 10).join(', ') + (users.length > 10 ? ` and ${users.length - 10} more` : '');
      throw new ApiError(
        409,
        `${resource} ${id} cannot be deleted: it is used by ${shownUsers}. Change or delete those first.`,
      );
    }
    ctx.store.remove(resource, id);
  });
  // Only once the record's removal is durable: a crash before this leaves an orphan file, swept on start.
  if (resource === 'media') await ctx.media.remove(id);
  return { data: { id, deleted: true }, wrote: { resource, action: 'delete', id } };
}

/** Records that would be left pointing at nothing if `resource` `id` went away. */
function usersOf(resource: Resource, id: number, store: RecordStore): string[] {
  const users: string[] = [];
  if (resource === 'category') {
    for (const article of store.list('article'))
      if (article.category_id === id) users.push(`article ${article.id}${label(article.slug)}`);
    for (const category of store.list('category'))
      if (category.parent_id === id) users.push(`category ${category.id}${label(category.slug)} (as parent)`);
  }
  if (resource === 'media') {
    for (const [owner, field] of [
      ['article', 'body'],
      ['page', 'content'],
    ] as const) {
      for (const record of store.list(owner)) {
        const html = record[field];
        if (typeof html !== 'string' || !html.includes('dynamic-block')) continue;
        const scan = scanDynamicBlocks(html);
        if (scan.ok && scan.blocks.some((block) => block.mediaId === id))
          users.push(`${owner} ${record.id}${label(record.slug)}`);
      }
    }
  }
  return users;
}

function label(slug: unknown): string {
  return typeof slug === 'string' && slug !== '' ? ` (${slug})` : '';
}

const UPLOAD_KEYS = new Set(['url', 'title', 'alt']);

async function uploadFromUrl(request: ParsedRequest, ctx: ApiContext): Promise<ActionResult> {
  if (request.id !== undefined)
    throw new ApiError(400, '"id" is not allowed in upload_from_url: the server assigns media ids.');
  const data = requireData(request, 'upload_from_url');
  for (const key of Object.keys(data)) {
    if (!UPLOAD_KEYS.has(key))
      throw new ApiError(
        400,
        `Unknown field ${JSON.stringify(key)} in upload_from_url data. Allowed: url, title, alt.`,
      );
  }
  if (typeof data.url !== 'string' || data.url === '')
    throw new ApiError(
      400,
      `data.url is required: the http(s) URL to fetch the file from, got ${describe(data.url)}.`,
    );
  for (const key of ['title', 'alt'] as const) {
    if (data[key] !== undefined && data[key] !== null && typeof data[key] !== 'string')
      throw new ApiError(400, `data.${key} must be a string, got ${describe(data[key])}.`);
  }
  const sourceUrl = data.url;
  // The slow part, the fetch, happens outside the write queue; only the move and record are serialized.
  const file = await download(
    sourceUrl,
    ctx.media.incomingDir,
    ctx.dispatcher,
    ctx.downloadLimits,
    ctx.uploadHosts,
  );
  const record = await ctx.store
    .exclusive(() =>
      ctx.store.insert('media', async (id) => {
        await ctx.media.place(id, file);
        return {
          url: `${ctx.baseUrl()}/media/${id}/${encodeURIComponent(file.filename)}`,
          // Shown on the tokenless pages: a user:password in the URL must not be kept.
          source_url: shown(sourceUrl),
          filename: file.filename,
          mime: file.mime,
          size: file.size,
          sha256: file.sha256,
          title: (data.title as string | undefined) ?? null,
          alt: (data.alt as string | undefined) ?? null,
          created_at: ctx.now().toISOString(),
        };
      }),
    )
    // Once placed the temp file is gone; on any failure before that it must not linger.
    .finally(() => rm(file.tempPath, { force: true }));
  return { data: record, wrote: { resource: 'media', action: 'upload_from_url', id: record.id } };
}

function requireId(request: ParsedRequest, action: string): number {
  if (request.id === undefined) throw new ApiError(400, `"id" is required for ${action}.`);
  return request.id;
}

function requireData(request: ParsedRequest, action: string): Record<string, unknown> {
  if (request.data === undefined)
    throw new ApiError(400, `"data" is required for ${action}: an object of the record's fields.`);
  return request.data;
}
