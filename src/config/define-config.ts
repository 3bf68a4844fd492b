import type { ShortcodeHandler, SiteInfo } from '../render/templates/builtins.js';
import type { ApiRequest, RemoteRecord } from '../resources.js';
import type { ImageSize, RecordResource } from '../resources.js';

/**
 * How one resource's front matter becomes API fields. The keys of `fields` are cms-sync's
 * names for what it manages; the values are the field names your CMS uses.
 */
export interface ResourceOptions {
  /**
   * API field name for each managed field. Only the names you set are changed.
   * @default the same names (article: title, slug, created_at, status, category_id, author_id,
   * author_ids, body; page: title, slug, status, content; category: name, slug, description,
   * parent_id; breaking: title, slug, url, status; user: name, slug, email, role, bio)
   * @example { body: 'html', created_at: 'published_at' }
   */
  fields?: Record<string, string>;
  /**
   * Front matter keys that cms-sync does not manage: `true` sends all of them as they are,
   * a list sends only those, `false` sends none (each dropped key is reported as a warning,
   * never silently lost). Fields the CMS sets itself (`id`, `created_at`, `updated_at`, the
   * change marker) are never sent.
   * @default false
   */
  passThrough?: boolean | string[];
  /**
   * Whether cms-sync may delete records of this resource that it owns when their file is
   * gone (and pruning is on).
   * @default true, except `user`: false
   */
  allowDelete?: boolean;
}

/**
 * A unified plugin as the render workers can load it: a module specifier (`'remark-gfm'`,
 * `'./plugins/x.js'`), or `[specifier, options]` where options are JSON data.
 */
export type PluginEntry = string | [specifier: string, options?: unknown];

/** A config's own API client factory (`target.client`): see `CmsClient` for what it returns. */
export type ClientFactory = (
  options: ClientFactoryOptions,
  createDefault: (options: ClientFactoryOptions) => ConfigClient,
) => ConfigClient;

/**
 * The options cms-sync builds its client from (the library's `ClientOptions`): pass them on to
 * `createDefault` as they are. Typed loosely here so that a config type-checks without
 * @types/node.
 */
export type ClientFactoryOptions = { readonly baseUrl: string } & Readonly<Record<string, unknown>>;

/**
 * What `target.client` returns: the library's `CmsClient`, described without Node's types. The
 * default client has every method; replace those your CMS needs done otherwise.
 */
export interface ConfigClient {
  /** One API call; resolves with the envelope's `data`. Retries and the rate limit apply. */
  call(request: ApiRequest, options?: { idempotencyKey?: string }): Promise<unknown>;
  list(
    resource: string,
    options?: object,
  ): Promise<{ records: RemoteRecord[]; complete: boolean; total?: number }>;
  get(resource: string, id: number): Promise<RemoteRecord | undefined>;
  add(
    resource: string,
    data: Record<string, unknown>,
    options?: { idempotencyKey?: string },
  ): Promise<{ id: number; record: RemoteRecord | undefined }>;
  edit(
    resource: string,
    id: number,
    data: Record<string, unknown>,
    options?: { idempotencyKey?: string },
  ): Promise<RemoteRecord | undefined>;
  delete(resource: string, id: number, options?: { idempotencyKey?: string }): Promise<void>;
  uploadFromUrl(
    url: string,
    extra?: { title?: string; alt?: string },
    options?: { idempotencyKey?: string },
  ): Promise<{ id: number; record: Record<string, unknown> | undefined }>;
  readonly stats: object;
  readonly concurrency: number;
  close(): Promise<void>;
}

/** The shape of `sync.config.ts`. Every option is optional; the defaults follow docs/contract.md. */
export interface UserConfig {
  /**
   * Folder of Markdown content, relative to the config file.
   * @default 'content'
   */
  contentDir?: string;
  /**
   * Folder of cms-sync's state (state.jsonl and state.log.jsonl, journal, lock), relative to the config file.
   * @default '.cms-sync'
   */
  stateDir?: string;
  /** Where the CMS is. With neither `baseUrl` nor `CMS_BASE_URL`, the local CMS is used. */
  target?: {
    /**
     * Base URL of the CMS; the endpoint is `{baseUrl}{wire.endpointPath}`.
     * Overridden by env `CMS_BASE_URL`.
     * @default undefined (the embedded local CMS)
     */
    baseUrl?: string;
    /**
     * Name of the environment variable that holds the API token. The token itself never goes
     * in this file.
     * @default 'CMS_API_TOKEN'
     */
    tokenEnv?: string;
    /**
     * Builds the API client, for a CMS whose wire differs beyond what `wire` can say (other
     * action names, another envelope, a second endpoint). It receives the options cms-sync would
     * use and the default factory, and returns an object with the methods of `CmsClient`; the
     * usual way is to take the default client and replace the methods that differ (keep the
     * object itself: its `stats` are read live). What goes through `call` keeps the retries,
     * the rate limit and the idempotency keys.
     * @default undefined (the built-in client)
     * @example
     * client: (options, createDefault) => {
     *   const client = createDefault(options);
     *   client.add = async (resource, data, o) => {
     *     const answer = (await client.call({ resource, action: 'create', data }, o)) as { uid: number };
     *     return { id: answer.uid, record: undefined };
     *   };
     *   return client;
     * }
     */
    client?: ClientFactory;
  };
  media?: {
    /**
     * Public URL under which the CMS can fetch `content/`; a local image is uploaded from
     * `publicBaseUrl + its path relative to content/`. Overridden by env `CMS_MEDIA_BASE_URL`.
     * Not needed with the local CMS: cms-sync serves `content/` to it on loopback.
     * @example 'https://raw.githubusercontent.com/acme/newsroom/main/content/'
     */
    publicBaseUrl?: string;
    /**
     * `data-size` of an image whose title does not set one.
     * @default 'medium'
     */
    defaultSize?: ImageSize;
    /**
     * What happens to a record whose image cannot be had: a local file that is missing, or a
     * remote image the CMS failed to fetch. `'error'` skips the record with an error at the
     * image's line; `'warn'` publishes it with the image left as a plain `<img>` of the address
     * written (a warning at its line, every run); `'drop'` publishes it without the image (a
     * warning too). Each run tries again: a missing file that is added, or a failed image whose
     * retry is due, becomes a media block.
     * @default 'error'
     */
    onMissing?: 'error' | 'warn' | 'drop';
    /**
     * How long a remote image the CMS failed to fetch is remembered (in `.cms-sync/failed-media.json`)
     * before an upload is tried again, in milliseconds; until then it counts as missing (see
     * `onMissing`) and costs no request. `--retry-failed-media` tries every one again now.
     * @default 86400000 (24 hours)
     */
    retryFailedAfterMs?: number;
  };
  /** Requests and safety limits. Flags of the same name override these. */
  sync?: {
    /**
     * Requests in flight at once.
     * @default 4
     */
    concurrency?: number;
    /**
     * Ceiling on requests per second; 0 means no ceiling.
     * @default 0
     */
    rps?: number;
    /**
     * Per-request timeout in milliseconds.
     * @default 30000
     */
    timeoutMs?: number;
    /**
     * Delete records whose file is gone (only records cms-sync created or adopted).
     * @default false
     */
    prune?: boolean;
    /**
     * More planned deletes than this aborts the run before any call (exit 3).
     * @default 20
     */
    maxDeletes?: number;
    /** How long a request is retried after 429s, 5xx, timeouts and dropped connections. */
    retry?: {
      /**
       * Attempts per request, the first included.
       * @default 6
       */
      maxAttempts?: number;
      /**
       * Total time one request may spend waiting between attempts, in milliseconds.
       * @default 300000
       */
      budgetMs?: number;
      /**
       * Longest `Retry-After` waited for, in milliseconds; a longer one fails the request with a
       * message that says so (it is never silently shortened).
       * @default 120000
       */
      maxRetryAfterMs?: number;
    };
    /**
     * When a run lists the CMS in full rather than only what changed since the last listing (see
     * `wire.changeMarker`): a listing of changes trusts the CMS to move the marker on every write,
     * and a full one now and then repairs what a CMS that did not (a bulk import straight into its
     * database) left unseen. `--refresh=full` lists in full at once.
     */
    fullRefresh?: {
      /**
       * Every this many runs, counted per resource; 1 lists in full every time.
       * @default 100
       */
      everyRuns?: number;
      /**
       * When the last full listing is this many days old.
       * @default 7
       */
      everyDays?: number;
    };
  };
  /**
   * IANA time zone in which a date without an offset (`date: 2026-11-20`,
   * `date: 2026-11-20T09:30`) is read; a value with `Z` or an offset is taken as written. Never
   * the machine's own zone, so every machine and CI sends the same `created_at`.
   * @default 'UTC'
   * @example timezone: 'Europe/Madrid'
   */
  timezone?: string;
  /**
   * What one content file may hold. A file over a limit is reported as an error at its
   * `path:line:column`, naming the limit, and skipped (its record is left as it is); the other
   * files are synced. They bound the memory and time a single hostile or broken file can take.
   */
  limits?: {
    /**
     * Largest Markdown file read, in bytes; a larger file is refused by its size, unread.
     * @default 5242880 (5 MiB)
     */
    maxFileBytes?: number;
    /**
     * Largest front matter block, in bytes.
     * @default 262144 (256 KiB)
     */
    maxFrontMatterBytes?: number;
    /**
     * Most top-level keys in one front matter block.
     * @default 1000
     */
    maxFrontMatterKeys?: number;
    /**
     * Most YAML alias uses (`*name`) in one front matter block; aliases that expand without
     * bound (an "alias bomb") are refused.
     * @default 100
     */
    maxYamlAliases?: number;
    /**
     * Deepest nesting of block quotes and lists in a Markdown body, and of lists and mappings
     * in front matter. (HTML elements nested deeper than the renderer can go fail their file.)
     * @default 100
     */
    maxNestingDepth?: number;
    /**
     * Most emphasis markers (`*`, `_`, `~`) in one paragraph: matching them takes time that
     * grows with the square of their number.
     * @default 5000
     */
    maxEmphasisMarkers?: number;
    /**
     * Longest a document may take to render, in milliseconds. Enforced for documents rendered
     * on worker threads (many documents, or a large one); a worker over budget is replaced.
     * @default 10000
     */
    renderBudgetMs?: number;
  };
  /**
   * Front matter `draft: true|false` -> numeric `status`.
   * @default { draft: 0, published: 1 }
   */
  statusMap?: { draft?: number; published?: number };
  /** Per-resource field mapping and rules. */
  resources?: Partial<Record<RecordResource, ResourceOptions>>;
  /**
   * Translations (`index.es.md`, `post.pt-br.md`, or front matter `lang: es`): a document in the
   * default language keeps its slug, one in another language gets `<slug>-<lang>`.
   */
  languages?: {
    /**
     * The language of documents that name none; its documents keep their plain slug.
     * @default 'en'
     */
    default?: string;
    /**
     * Languages recognised in file names (`post.es.md`). Without it, any two-letter language
     * code, with an optional region or script (`pt-br`, `zh-hant`), is one; with it, only these
     * are, so `notes.it.md` can stay a document named `notes.it` on a site with no Italian.
     * @default any two-letter language code
     * @example ['en', 'es', 'pt-br']
     */
    codes?: string[];
    /**
     * API field that receives each article's language, e.g. `'lang'` (the CMS keeps custom fields
     * on articles only); unset, the language is sent only as part of the slug.
     * @default undefined
     */
    field?: string;
  };
  /** How cms-sync reads and writes the API where the spec leaves it open (docs/cms-api.md). */
  /** How Markdown bodies are read before they are rendered. */
  markdown?: {
    /**
     * Template syntax expanded before rendering: Hugo shortcodes (`{{< >}}`, `{{% %}}`), Liquid
     * tags and outputs (`{% %}`, `{{ }}`), both (`'auto'`), or none (`false`). What is not
     * expanded is a warning at its line, never text published in silence. See docs/templates.md.
     * @default 'auto'
     */
    templates?: 'auto' | 'hugo' | 'liquid' | false;
    /**
     * A site's own shortcodes and Liquid tags by name, each a function that returns Markdown or
     * HTML; they take precedence over the built-in ones.
     * @default {}
     * @example shortcodes: { image: ({ args }) => `![${args[1] ?? ''}](${args[0]})` }
     */
    shortcodes?: Record<string, ShortcodeHandler>;
    /**
     * What templates may ask of the site: `baseUrl` (Jekyll `baseurl`, or Hugo's `baseURL`),
     * `url` (Jekyll `url`) and `params` (`{{< param x >}}`, `{{ site.x }}`).
     * @default {}
     */
    site?: SiteInfo;
    /**
     * remark plugins (Markdown syntax tree), run after GFM and before images are collected, as
     * Astro and Docusaurus take them: each a module specifier, resolved from the project folder
     * as Node would from sync.config.ts, or `[specifier, options]` with JSON options. A plugin's
     * name, version (or a local file's content) and options are part of each rendered record's
     * fingerprint, so changing one renders the articles and pages again, and only them.
     * @default []
     * @example remarkPlugins: ['remark-smartypants', ['./plugins/abbr.js', { wiki: true }]]
     */
    remarkPlugins?: PluginEntry[];
    /**
     * rehype plugins (HTML syntax tree), run after raw HTML is parsed and before images become
     * media blocks; given as `remarkPlugins` are.
     * @default []
     * @example rehypePlugins: [['rehype-external-links', { rel: ['nofollow'] }]]
     */
    rehypePlugins?: PluginEntry[];
    /**
     * Where an image's caption goes: a Hugo `figure`'s `caption` (or any `<figure>` with a
     * `<figcaption>` around one image), and the title of an image that stands alone in its
     * paragraph (`![Alt](a.png "Caption")`). `'paragraph'`: a `<p class="caption">` right after
     * the media block; `'figure'`: `<figure>` with the block and a `<figcaption>`; `'none'`:
     * dropped from the body (a title still reaches the media record).
     * @default 'paragraph'
     */
    captions?: 'paragraph' | 'figure' | 'none';
    /**
     * TeX math, as remark-math reads it: `$…$` inline and `$$…$$` display (a `$$` line, the TeX,
     * a `$$` line). Its TeX reaches the CMS exactly as typed (no backslash escape or emphasis
     * applied), HTML-escaped, as `<span class="math math-inline">\(…\)</span>` and
     * `<div class="math math-display">\[…\]</div>`: the delimiters MathJax and KaTeX's
     * auto-render find by default, so the site's page needs only one of them loaded. Math in code
     * stays code. `{ singleDollar: false }` reads only `$$…$$` (inline within a line, display on
     * lines of its own), so that `$5 and $10` stay prices, as on a kramdown (Jekyll) site. Off,
     * dollars are text and TeX goes through Markdown like any text. Turning it on or off renders
     * the articles and pages again; only those whose HTML changes are updated.
     * @default false
     * @example math: true
     */
    math?: boolean | { singleDollar?: boolean };
  };
  wire?: {
    /**
     * Path of the single endpoint.
     * @default '/functions/api'
     */
    endpointPath?: string;
    /**
     * Page size when listing; the API's maximum is 100.
     * @default 100
     */
    pageSize?: number;
    /**
     * Properties of a list's `data` that may hold the array (`{resource}` is replaced).
     * @default ['items', 'records', 'results', 'rows', 'list', '{resource}s']
     */
    listKeys?: string[];
    /**
     * Dotted paths where a created record's id may be found.
     * @default ['id', 'record.id', 'item.id', 'data.id']
     */
    idPaths?: string[];
    /**
     * Dotted paths where the answer to get, add or edit holds the record itself, tried first.
     * A CMS that answers `{"result":{"entry":{...}}}` needs `['result.entry']`; without it,
     * cms-sync finds the id through `idPaths` but fetches each written record once more.
     * @default []
     * @example recordPaths: ['result.entry']
     */
    recordPaths?: string[];
    /**
     * Keys that may hold a media id in `upload_from_url`'s answer.
     * @default ['id', 'media_id', 'mediaId']
     */
    mediaIdKeys?: string[];
    /**
     * Header that carries an idempotency key on writes, or `false` to send none.
     * @default 'Idempotency-Key'
     */
    idempotencyHeader?: string | false;
    /**
     * Request property that carries a record's fields on `add` and `edit`.
     * @default 'data'
     */
    payloadKey?: string;
    /**
     * Property of the `upload_from_url` payload that holds the URL the CMS fetches.
     * @default 'url'
     */
    uploadUrlField?: string;
    /**
     * Field of a media record that holds an image's alt text: sent with `upload_from_url`, and
     * in an `edit` of the media record when the alt changes. `false` sends none.
     * @default 'alt'
     */
    mediaAltField?: string | false;
    /**
     * Field of a media record that holds an image's title (as `mediaAltField`). `false` sends none.
     * @default 'title'
     */
    mediaTitleField?: string | false;
    /**
     * A field the CMS sets to the time of every write (like `updated_at`). With it, a run lists
     * only ids, slugs and this field, and reads in full only the records that changed since
     * cms-sync's last write; and, when the CMS sorts by it (`order_by: "<field> DESC"`) and
     * reports a `total`, it asks only for the records changed since the last run, kept with the
     * rest in a cache under the state folder (`sync.fullRefresh` says when it lists in full).
     * `false` lists every field of every record (for a CMS without such a field).
     * @default 'updated_at'
     */
    changeMarker?: string | false;
    /**
     * How far before the last listing a listing of changes reaches back, in milliseconds: a
     * write in flight at the CMS while cms-sync listed can carry a time earlier than the newest
     * record it saw, and would otherwise never be read.
     * @default 300000
     */
    changeMarkerLookbackMs?: number;
  };
}

/** Identity function that gives `sync.config.ts` types and editor help. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}
