/**
 * The resources of the CMS API (docs/cms-api.md). What cms-sync knows of each record resource
 * (folder, front matter, fields, relations) is its entry in resources/table.ts.
 */
export const RECORD_RESOURCES = ['category', 'user', 'article', 'page', 'breaking'] as const;
export type RecordResource = (typeof RECORD_RESOURCES)[number];

export const RESOURCES = [...RECORD_RESOURCES, 'media'] as const;
export type Resource = (typeof RESOURCES)[number];

export const ACTIONS = ['get', 'add', 'edit', 'delete'] as const;
export type Action = (typeof ACTIONS)[number] | 'upload_from_url';

export const MEDIA_EXTENSIONS = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'avif', 'pdf', 'mp4'] as const;

export const IMAGE_SIZES = ['small', 'medium', 'large'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** A record as the CMS holds it: an id plus fields. */
export type RemoteRecord = { id: number } & Record<string, unknown>;

/** The request body of the single endpoint (docs/cms-api.md). */
export interface ApiRequest {
  resource: Resource;
  /** One of the API's actions; any other name is sent as is (a custom client's CMS may have more). */
  action: Action | (string & {});
  id?: number | string;
  fields?: string[];
  filters?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  order_by?: string;
  data?: Record<string, unknown>;
}

export type ApiResponse = { status: 'success'; data: unknown } | { status: 'error'; message: string };
