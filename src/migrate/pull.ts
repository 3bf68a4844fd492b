import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { createMediaResolver } from '../media/resolve-media.js';
import { remoteDigests, sourceDigests } from '../plan/digest.js';
import { apiName, resolveFields, sameValue } from '../plan/payload.js';
import { buildRecord } from '../records/build-record.js';
import type { CmsClient } from '../remote/client.js';
import { RECORD_RESOURCES, type RecordResource, type RemoteRecord } from '../resources.js';
import { isDocumentFailure, readDocument } from '../source/read-document.js';
import type { StateStore } from '../state/journal.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { pullFields, type SlugBook } from './pull-fields.js';
import type { MigrationReport } from './report.js';
import { slugify } from './slug.js';
import { ContentWriter, folderOf } from './write-content.js';

/** Stands in for the source digest of a field whose file does not reproduce the CMS value. */
export const PULL_MISMATCH = 'pulled-value-differs';

export interface PullOptions {
  config: Config;
  client: CmsClient;
  /** Where adopted records are recorded; undefined when files go elsewhere than contentDir. */
  store: StateStore | undefined;
  contentDir: string;
  force: boolean;
  report: MigrationReport;
  onProgress?: (done: number, total: number) => void;
}

export interface PullResult {
  written: number;
  adopted: number;
  /** Records whose file renders back to exactly what the CMS holds. */
  exact: number;
  /** key -> fields the file does not reproduce (updated on the next apply). */
  differing: Map<string, string[]>;
}

interface Pulled {
  resource: RecordResource;
  remote: RemoteRecord;
  file: string;
}

/**
 * Every record of the CMS -> a content/ file, and each one adopted in state: `source` is what
 * cms-sync builds from the written file, `remote` what the CMS holds, so a plan right after
 * shows nothing to do. A field the file does not reproduce (HTML Markdown cannot express)
 * gets a source digest that matches nothing, so the next plan shows it as an update.
 */
export async function pullRecords(options: PullOptions): Promise<PullResult> {
  const { config, report } = options;
  const listings = new Map<RecordResource, RemoteRecord[]>();
  for (const resource of RECORD_RESOURCES) {
    const { records, complete } = await options.client.list(resource);
    if (!complete)
      report.warnOnce(
        `the CMS listing of ${resource} records was incomplete (it changed while being read): run pull again to get ` +
          `the rest`,
      );
    listings.set(
      resource,
      [...records].sort((a, b) => a.id - b.id),
    );
  }
  const field = (resource: RecordResource, name: string) => apiName(name, config.resources[resource]);
  // The slugs of every resource a relation of the table points at, by id.
  const slugs = new Map<RecordResource, Map<number, string>>();
  for (const resource of RECORD_RESOURCES)
    for (const { target } of RESOURCE_TABLE[resource].relations) {
      if (slugs.has(target)) continue;
      const byId = new Map<number, string>();
      for (const record of listings.get(target) ?? []) {
        const slug = record[field(target, 'slug')];
        if (typeof slug === 'string' && slug) byId.set(record.id, slug.normalize('NFC'));
      }
      slugs.set(target, byId);
    }

  const writer = new ContentWriter({
    projectDir: config.projectDir,
    contentDir: options.contentDir,
    force: options.force,
    report,
    exists: existsSync,
  });
  // Math goes back to `$…$` when the config reads it (see htmlToMarkdown's `math`).
  if (config.markdown.math) await (await import('../render/render-markdown.js')).loadMath();
  const pulled: Pulled[] = [];
  const total = [...listings.values()].reduce((n, l) => n + l.length, 0);
  let done = 0;
  for (const resource of RECORD_RESOURCES) {
    for (const remote of listings.get(resource) ?? []) {
      const get = (name: string) => remote[field(resource, name)];
      const label = `${resource} ${remote.id}`;
      try {
        const doc = toDocument(resource, remote, { config, slugs, report, label });
        const file = await writer.write(
          folderOf(resource),
          slugOf(get, `${resource}-${remote.id}`),
          doc.frontMatter,
          doc.body,
          label,
        );
        if (file) pulled.push({ resource, remote, file });
      } catch (error) {
        report.failures.push(`${label} could not be converted: ${(error as Error).message}`);
      }
      options.onProgress?.(++done, total);
    }
  }

  await writer.flush();
  const result: PullResult = { written: pulled.length, adopted: 0, exact: 0, differing: new Map() };
  if (options.store) await adopt(pulled, options.store, config, slugs, result, report);
  return result;
}

/** The record's slug; one without a slug gets a file named after its title (and the slug with it). */
function slugOf(get: (name: string) => unknown, fallback: string): string {
  const slug = get('slug');
  if (typeof slug === 'string' && slug.trim()) return slug.normalize('NFC');
  return slugify(String(get('title') ?? get('name') ?? '')) || fallback;
}

/** Reads the written files back through plan's own code path and records them in state. */
async function adopt(
  pulled: Pulled[],
  store: StateStore,
  config: Config,
  slugs: SlugBook,
  result: PullResult,
  report: MigrationReport,
): Promise<void> {
  const { renderMarkdown, loadMath } = await import('../render/render-markdown.js');
  if (config.markdown.math) await loadMath();
  const render = (markdown: string) =>
    renderMarkdown(markdown, {
      defaultSize: config.media.defaultSize,
      captions: config.markdown.captions,
      math: config.markdown.math,
    });
  const media = createMediaResolver({
    projectDir: config.projectDir,
    contentDir: config.contentDir,
    canServeLocalFiles: false,
  });
  // Every record a relation may name, by key (`user/jane`), as the plan binds them.
  const idByKey = new Map<string, number>();
  for (const [resource, byId] of slugs) for (const [id, slug] of byId) idByKey.set(`${resource}/${slug}`, id);
  const book = { idByKey, mediaIdByIdentity: new Map<string, number>() };
  for (const { resource, remote, file } of pulled) {
    const doc = await readDocument(path.join(config.projectDir, file), {
      projectDir: config.projectDir,
      resource,
    });
    if (isDocumentFailure(doc)) {
      report.failures.push(
        `${file}: written but cannot be read back (${doc.problems[0]?.message}); not adopted`,
      );
      continue;
    }
    const built = await buildRecord(doc, { config, render, media });
    if (!built.record) {
      report.failures.push(
        `${file}: written but ${built.problems.find((p) => p.severity === 'error')?.message ?? 'does not build'}; ` +
          `not adopted`,
      );
      continue;
    }
    const resourceConfig = config.resources[resource];
    const source = sourceDigests(built.record);
    const fields = Object.keys(source).sort();
    const { data, unresolved } = resolveFields(built.record, fields, book, resourceConfig);
    const differing = fields.filter(
      (f) =>
        unresolved.includes(f) ||
        !sameValue(data[apiName(f, resourceConfig)], remote[apiName(f, resourceConfig)]),
    );
    for (const f of differing) source[f] = PULL_MISMATCH;
    await store.recordWritten(doc.key, {
      id: remote.id,
      file,
      owner: 'adopted',
      source,
      remote: remoteDigests(remote, fields, (f) => apiName(f, resourceConfig)),
      // Without `input`, a record that differs is rebuilt by the next plan (and so updated).
      ...(differing.length === 0 && built.record.input ? { input: built.record.input } : {}),
    });
    result.adopted++;
    if (differing.length) result.differing.set(doc.key, differing);
    else result.exact++;
  }
}

interface Document {
  frontMatter: Record<string, unknown>;
  body: string;
}

/** One CMS record -> front matter and body, in the shape docs/contract.md (Layout) describes. */
function toDocument(
  resource: RecordResource,
  remote: RemoteRecord,
  ctx: { config: Config; slugs: SlugBook; report: MigrationReport; label: string },
): Document {
  const fields = pullFields(
    resource,
    remote,
    ctx.config.resources[resource],
    ctx.slugs,
    ctx.config.wire.changeMarker,
  );
  for (const note of fields.notes) ctx.report.warnings.push(`${ctx.label}: ${note}`);
  if (fields.unmapped.length)
    ctx.report.warnOnce(
      `${resource} fields ${fields.unmapped.map((f) => `\`${f}\``).join(', ')} are not written: list them in ` +
        `resources.${resource}.passThrough in sync.config.ts to pull them (and send them back)`,
    );
  const body =
    fields.html === undefined
      ? ''
      : htmlToMarkdown(fields.html, {
          faithful: true,
          math: ctx.config.markdown.math,
          onRelativeImage: (src) =>
            ctx.report.warnings.push(`${ctx.label}: image \`${src}\` has a relative URL; written as a link`),
        });
  return { frontMatter: fields.frontMatter, body };
}
