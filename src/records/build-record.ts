import path from 'node:path';
import type { Config } from '../config/schema.js';
import type { FileProblem } from '../errors.js';
import { resolveImages } from '../media/resolve-images.js';
import type { MediaResolver } from '../media/resolve-media.js';
import type { RenderResult } from '../render/render-markdown.js';
import type { RecordResource } from '../resources.js';
import { translatedSlug } from '../source/languages.js';
import type { SourceDocument } from '../source/read-document.js';
import type { RecordInput, StateRecord } from '../state/state-file.js';
import { digest } from '../digest.js';
import {
  formerSlugs,
  frontMatterSchema,
  HISTORY_KEYS,
  knownKeys,
  SITE_ID_KEY,
  siteIdOf,
  type FormerSlugs,
} from './front-matter.js';
import { dateFromFileName, parseDate } from './parse-date.js';
import { checkMarkdownLimits } from '../render/markdown-limits.js';
import { cmsOwnedFields, refsFromState } from '../resources/derived.js';
import { RESOURCE_TABLE, type RecordRef, type Relation } from '../resources/table.js';
import { likelyTypo } from './suggest.js';
import { packHtml, type RecordHtml } from './packed-html.js';

export { likelyTypo } from './suggest.js';

/**
 * What one file asks the CMS to hold, in cms-sync's field names. Values that depend on ids the
 * CMS gives out are kept symbolic — a category by slug, media by content — so whether a record
 * changed is known before any id exists.
 */
export interface DesiredRecord {
  key: string;
  resource: RecordResource;
  slug: string;
  file: string;
  /** Plain field values, keyed by cms-sync field name (extra front matter under its own key). */
  values: Record<string, unknown>;
  /** Records it names through its resource's relations, by slug: bound to ids only when sent. */
  refs?: RecordRef[];
  /** The Markdown body rendered to HTML, with a placeholder per image (held deflated, see packHtml). */
  html?: RecordHtml;
  /**
   * The slugs its front matter says it had (`aliases`, `redirect_from`): a new file that names the
   * record of a file that is gone is that record renamed (see detectRenames).
   */
  formerSlugs?: FormerSlugs;
  /** Its front matter `id` and the line of it: a gone file's record with the same one is this one renamed. */
  siteId?: { value: string; line: number };
  /** What it was built from (see RecordInput). */
  input?: RecordInput;
  /**
   * Set instead of values/html when the inputs are those of the last write: the state entry the
   * record is known to be (its `source` digests are the record's), and it was not rendered again.
   */
  unchangedSince?: StateRecord;
}

export type { RecordRef } from '../resources/table.js';

export type Renderer = (markdown: string) => RenderResult | Promise<RenderResult>;

/** Document -> DesiredRecord, or the problems that keep it from being synced. */
export async function buildRecord(
  doc: SourceDocument,
  context: {
    config: Config;
    render: Renderer;
    media: MediaResolver;
    fingerprint?: string | undefined;
    /** Where the rendered HTML is kept until it is written (see packHtml). */
    holdHtml?: ((html: string) => { toString(): string }) | undefined;
  },
): Promise<{ record?: DesiredRecord; problems: FileProblem[] }> {
  const problems: FileProblem[] = [];
  const at = (key: string | undefined, message: string, severity: FileProblem['severity'] = 'error') =>
    problems.push({
      file: doc.file,
      line: (key && doc.frontMatterLines[key]) || 1,
      column: 1,
      message,
      severity,
    });

  const parsed = frontMatterSchema(doc.resource).safeParse(doc.frontMatter);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = typeof issue.path[0] === 'string' ? issue.path[0] : undefined;
      at(key, key && !issue.message.includes(`\`${key}\``) ? `\`${key}\` ${issue.message}` : issue.message);
    }
    return { problems };
  }
  const fm = parsed.data as Record<string, unknown>;
  const descriptor = RESOURCE_TABLE[doc.resource];
  let body = doc.body;
  const own = descriptor.toFields(fm, {
    bodyText: body.trim(),
    dateOf: (value) => dateOf(value, doc.file, context.config.timezone),
  });
  if ('problem' in own) {
    at(own.key, own.problem);
    return { problems };
  }
  const values: Record<string, unknown> = { slug: doc.slug, ...own.values };
  if (descriptor.hasStatus) {
    // `status` wins, then `draft`, then Jekyll's `published`; with none, a merged file is live.
    const { draft, published } = context.config.statusMap;
    values.status =
      typeof fm.status === 'number'
        ? fm.status
        : typeof fm.draft === 'boolean'
          ? fm.draft
            ? draft
            : published
          : fm.published === false
            ? draft
            : published;
  }

  const record: DesiredRecord = {
    key: doc.key,
    resource: doc.resource,
    slug: doc.slug,
    file: doc.file,
    values,
  };
  const refs = refsOf(descriptor.relations, fm, doc.frontMatterLines);
  if (refs.length > 0) record.refs = refs;
  const history = formerSlugs(doc.frontMatter, doc.frontMatterLines);
  if (history.former) {
    // A translation's old address names its translated record (`old` is `old-fr`), as its file name does.
    const lang = doc.lang;
    const slugs = history.former.slugs.map((slug) =>
      lang && slug.endsWith(`-${lang}`) ? slug : translatedSlug(slug, lang, context.config.languages),
    );
    record.formerSlugs = { ...history.former, slugs: [...new Set(slugs)] };
  }
  for (const problem of history.problems) at(problem.key, problem.message, 'warning');
  const siteId = siteIdOf(doc.frontMatter[SITE_ID_KEY]);
  if (siteId !== undefined) record.siteId = { value: siteId, line: doc.frontMatterLines[SITE_ID_KEY] ?? 1 };

  // Front matter cms-sync does not manage: sent as is, or reported — never dropped silently.
  const passThrough = context.config.resources[doc.resource].passThrough;
  const known = new Set(knownKeys(doc.resource));
  const owned = cmsOwnedFields(doc.resource, context.config.wire.changeMarker);
  for (const [key, value] of Object.entries(doc.frontMatter)) {
    if (known.has(key)) continue;
    const listed = Array.isArray(passThrough) && passThrough.includes(key);
    // Read above as the file's old addresses; sent as well only when passThrough asks for it.
    if (HISTORY_KEYS.includes(key) && !listed && passThrough !== true) continue;
    // Never sent, however passThrough reads (see cmsOwnedFields); a site `id` was read above as the file's own.
    if (owned.has(key)) {
      if (listed)
        at(
          key,
          `front matter \`${key}\` is not sent to the CMS, which sets \`${key}\` itself: remove \`${key}\` from ` +
            `resources.${doc.resource}.passThrough in sync.config.ts` +
            (key === SITE_ID_KEY
              ? " (it stays the file's own id), or rename the key to send it as a field"
              : ''),
          'warning',
        );
      else if (key !== SITE_ID_KEY || siteId === undefined)
        at(
          key,
          `front matter \`${key}\` is not sent to the CMS, which sets \`${key}\` itself: rename the key to send ` +
            `it as a field, or remove it`,
          'warning',
        );
      continue;
    }
    const meant = listed ? undefined : likelyTypo(key, known);
    if (meant) {
      at(
        key,
        `front matter \`${key}\` looks like a typo of \`${meant}\`, which cms-sync reads: did you mean \`${meant}\`? ` +
          `Fix the key, or list \`${key}\` in resources.${doc.resource}.passThrough in sync.config.ts to send it as is`,
      );
      continue;
    }
    if (passThrough === true || (Array.isArray(passThrough) && passThrough.includes(key))) {
      values[key] = passedThrough(value, context.config.timezone);
    } else {
      at(
        key,
        `front matter \`${key}\` is not sent to the CMS: list it in resources.${doc.resource}.passThrough in ` +
          `sync.config.ts to send it`,
        'warning',
      );
    }
  }

  const htmlField = descriptor.htmlField;
  let replaced = 0;
  if (htmlField) {
    const { templates, shortcodes, site, math } = context.config.markdown;
    // The expander (and the parser it uses to find code) loads only for a body that has template
    // syntax: most have none, and a run that renders nothing loads no Markdown code at all.
    if (templates !== false && (body.includes('{{') || body.includes('{%'))) {
      // The expander parses the body to find code in it, so the limits that guard the renderer's
      // parser must hold first; and whatever it throws costs this file only.
      const refused = checkMarkdownLimits(body, context.config.limits);
      const at = (line: number, column: number, message: string): FileProblem => ({
        file: doc.file,
        line: doc.bodyLine + line - 1,
        column,
        message,
        severity: 'error',
      });
      if (refused) return { problems: [...problems, at(refused.line, refused.column, refused.message)] };
      try {
        const { expandTemplates } = await import('../render/templates/expand-templates.js');
        if (math) await (await import('../render/math-syntax.js')).loadMath();
        const expanded = expandTemplates(body, {
          file: doc.file,
          bodyLine: doc.bodyLine,
          site,
          shortcodes,
          dialect: templates,
          math,
        });
        problems.push(...expanded.problems);
        body = expanded.text;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { problems: [...problems, at(1, 1, `its template syntax could not be expanded: ${message}`)] };
      }
    }
    let rendered: RenderResult;
    try {
      rendered = await context.render(body);
    } catch (error) {
      // Over the time budget, or a worker's failure: this document fails, the run goes on.
      const message = error instanceof Error ? error.message : String(error);
      problems.push({
        file: doc.file,
        line: doc.bodyLine,
        column: 1,
        message: `the body could not be rendered: ${message}`,
        severity: 'error',
      });
      return { problems };
    }
    for (const p of rendered.problems) {
      problems.push({
        file: doc.file,
        line: doc.bodyLine + p.line - 1,
        column: p.column,
        message: p.message,
        severity: p.severity,
      });
    }
    const images = await resolveImages(rendered, doc, context.media, context.config.media.onMissing);
    problems.push(...images.problems);
    record.html = packHtml(htmlField, images.html, images.media, images.text, context.holdHtml);
    replaced = images.replaced;
  }
  const local = record.html?.media.filter((m) => m.kind === 'file') ?? [];
  record.input = {
    hash: inputHash(
      doc.hash,
      withExtra(pipelineFingerprint(context.config), context.fingerprint),
      // An image left out (media.onMissing) is looked for again next run: no reuse until it is there.
      [...local.map((m) => m.sha256), ...(replaced > 0 ? ['replaced'] : [])],
    ),
    media: local.map((m) => m.contentPath),
    fileSha: doc.hash,
    ...(record.refs ? { refs: refsInput(record.refs) } : {}),
    ...(siteId !== undefined ? { siteId } : {}),
  };

  return problems.some((p) => p.severity === 'error') ? { problems } : { record, problems };
}

/** The slugs each relation key of the front matter names, in the order of the table. */
function refsOf(
  relations: readonly Relation[],
  fm: Record<string, unknown>,
  lines: Record<string, number>,
): RecordRef[] {
  const refs: RecordRef[] = [];
  for (const relation of relations) {
    const value = fm[relation.key];
    if (value === undefined) continue;
    const named = (Array.isArray(value) ? value : [value]) as string[];
    const slugs = [...new Set(named.map((slug) => slug.normalize('NFC')))];
    if (slugs.length > 0) refs.push({ relation, slugs, line: lines[relation.key] ?? 1 });
  }
  return refs;
}

/** Refs as state keeps them, so a record taken from state unrendered still knows what it names. */
function refsInput(refs: readonly RecordRef[]): NonNullable<RecordInput['refs']> {
  return Object.fromEntries(refs.map((ref) => [ref.relation.key, { slugs: ref.slugs, line: ref.line }]));
}

/**
 * A passed-through value as the CMS gets it. A bare YAML timestamp is read as text (see
 * parseYaml) and sent as ISO 8601, as js-yaml's dates were; other text is sent as written.
 */
function passedThrough(value: unknown, timeZone: string): unknown {
  if (value instanceof Date) return value.toISOString();
  if (
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/.test(
      value,
    )
  ) {
    const parsed = parseDate(value, timeZone);
    if ('iso' in parsed) return parsed.iso;
  }
  return value;
}

/**
 * `created_at` from front matter `date` (validated by the schema), else from a leading
 * `YYYY-MM-DD-` in the file name (Jekyll's posts); else none, and the CMS keeps its own time.
 */
function dateOf(value: unknown, file: string, timeZone: string): string | undefined {
  const fromName = value === undefined ? dateFromFileName(path.posix.basename(file)) : undefined;
  const parsed =
    value !== undefined ? parseDate(value, timeZone) : fromName && parseDate(fromName.date, timeZone);
  return parsed && 'iso' in parsed ? parsed.iso : undefined;
}

/** Bump when rendering or mapping changes what a file produces, so every record is rebuilt. */
const PIPELINE_VERSION = 6;

const fingerprints = new WeakMap<Config, string>();

/** Everything in the config that changes what a file becomes (computed once per config). */
export function pipelineFingerprint(config: Config): string {
  let fingerprint = fingerprints.get(config);
  if (!fingerprint) {
    fingerprint = digest({
      v: PIPELINE_VERSION,
      resources: config.resources,
      statusMap: config.statusMap,
      defaultSize: config.media.defaultSize,
      onMissing: config.media.onMissing,
      captions: config.markdown.captions,
      timezone: config.timezone,
      markdown: templatesFingerprint(config),
    });
    fingerprints.set(config, fingerprint);
  }
  return fingerprint;
}

/**
 * What of `markdown` changes a body's expansion: the dialect, the site, and each handler by its
 * name and source text (a changed handler re-renders; an unchanged config renders nothing).
 */
function templatesFingerprint(config: Config): unknown {
  const { templates, shortcodes, site } = config.markdown;
  const handlers = Object.entries(shortcodes).map(([name, fn]) => [name, digest(String(fn))]);
  return templates === 'auto' && handlers.length === 0 && Object.keys(site).length === 0
    ? undefined
    : { templates, handlers, site };
}

/** The pipeline's fingerprint with what the caller adds for this record (plugins, layout: see readSource). */
function withExtra(fingerprint: string, extra: string | undefined): string {
  return extra === undefined ? fingerprint : `${fingerprint}+${extra}`;
}

/** The digest of a record's inputs (RecordInput.hash): file bytes, pipeline, images. */
export function inputHash(fileHash: string, fingerprint: string, mediaHashes: string[]): string {
  return digest(`${fileHash}:${fingerprint}:${mediaHashes.join(',')}`);
}

/**
 * The record without rendering it, when its file, the pipeline and its local images are all as
 * they were at the last write. `imageHashes` are the sha256 now of `entry.input.media`, in order
 * (undefined for an image that is gone).
 */
export function reuseRecord(
  doc: Pick<SourceDocument, 'key' | 'resource' | 'slug' | 'file' | 'hash'>,
  entry: StateRecord | undefined,
  context: {
    config: Config;
    imageHashes: ReadonlyArray<string | undefined>;
    fingerprint?: string | undefined;
  },
): DesiredRecord | undefined {
  if (!entry?.input || entry.file !== doc.file) return undefined;
  const hashes = context.imageHashes;
  if (hashes.length !== entry.input.media.length || hashes.some((h) => h === undefined)) return undefined;
  const fingerprint = withExtra(pipelineFingerprint(context.config), context.fingerprint);
  if (inputHash(doc.hash, fingerprint, hashes as string[]) !== entry.input.hash) return undefined;
  const record: DesiredRecord = {
    key: doc.key,
    resource: doc.resource,
    slug: doc.slug,
    file: doc.file,
    values: {},
    // Nothing changes a record's input once made: state's own is shared when it has the same file sha.
    input: entry.input.fileSha === doc.hash ? entry.input : { ...entry.input, fileSha: doc.hash },
    unchangedSince: entry,
  };
  if (entry.input.refs) record.refs = refsFromState(doc.resource, entry.input.refs);
  return record;
}
