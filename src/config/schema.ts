import type { z as Z } from 'zod';
import { zod, type ZodKit } from '../zod.js';
import { isTimeZone } from '../records/parse-date.js';
import { IMAGE_SIZES, RECORD_RESOURCES, type ImageSize, type RecordResource } from '../resources.js';
import { managedFields } from '../resources/derived.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import type { ClientFactory, PluginEntry, UserConfig } from './define-config.js';
import { pluginEntryProblem } from '../render/plugins.js';
import { isLanguageTag } from '../source/languages.js';
import type { ContentLimits } from '../source/limits.js';
import type { ShortcodeHandler, SiteInfo } from '../render/templates/builtins.js';
import type { MathSyntax } from '../render/math-syntax.js';

/** Managed fields per resource, in the order they are shown (from the resource table). */
export const MANAGED_FIELDS: Readonly<Record<RecordResource, readonly string[]>> = Object.fromEntries(
  RECORD_RESOURCES.map((r) => [r, managedFields(RESOURCE_TABLE[r])]),
) as unknown as Record<RecordResource, readonly string[]>;

function describe(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\` (${value === null ? 'null' : typeof value})`;
}

/**
 * Bump when the schema changes what it accepts: configs validated under another version are
 * validated again (see validated-configs.ts). A test fails when the schema changes without it.
 */
export const CONFIG_SCHEMA_VERSION = 5;

/** The config schema, built (and zod loaded) on first use. */
function buildConfigSchema(z: ZodKit) {
  const positiveInt = (name: string, min: number) =>
    z
      .number({
        error: (issue) => `Expected \`${name}\` to be an integer >= ${min}, got ${describe(issue.input)}`,
      })
      .int({
        error: (issue) => `Expected \`${name}\` to be an integer >= ${min}, got ${describe(issue.input)}`,
      })
      .min(min, {
        error: (issue) => `Expected \`${name}\` to be an integer >= ${min}, got ${describe(issue.input)}`,
      });

  const pluginEntry = (stage: string) =>
    z.custom<PluginEntry>((value) => pluginEntryProblem(value) === undefined, {
      error: (issue) =>
        `Expected each of \`markdown.${stage}\` to be usable: ${pluginEntryProblem(issue.input)}`,
    });
  const languageTag = (name: string) =>
    z.string().refine((tag) => isLanguageTag(tag), {
      error: (issue) =>
        `Expected \`${name}\` to be a language tag such as en, es or pt-br, got ${describe(issue.input)}`,
    });

  const resourceOptions = z.strictObject({
    fields: z.record(z.string(), z.string().min(1)).optional(),
    passThrough: z.union([z.boolean(), z.array(z.string())]).optional(),
    allowDelete: z.boolean().optional(),
  });

  return z.strictObject({
    contentDir: z.string().min(1).optional(),
    stateDir: z.string().min(1).optional(),
    target: z
      .strictObject({
        baseUrl: z.url().optional(),
        tokenEnv: z.string().min(1).optional(),
        client: z
          .custom<ClientFactory>((value) => typeof value === 'function', {
            error: (issue) => `Expected \`target.client\` to be a function, got ${describe(issue.input)}`,
          })
          .optional(),
      })
      .optional(),
    media: z
      .strictObject({
        publicBaseUrl: z.url().optional(),
        defaultSize: z.enum(IMAGE_SIZES).optional(),
        onMissing: z.enum(['error', 'warn', 'drop']).optional(),
        retryFailedAfterMs: positiveInt('media.retryFailedAfterMs', 0).optional(),
      })
      .optional(),
    sync: z
      .strictObject({
        concurrency: positiveInt('sync.concurrency', 1).optional(),
        rps: z.number().min(0).optional(),
        timeoutMs: positiveInt('sync.timeoutMs', 1).optional(),
        prune: z.boolean().optional(),
        maxDeletes: positiveInt('sync.maxDeletes', 0).optional(),
        retry: z
          .strictObject({
            maxAttempts: positiveInt('sync.retry.maxAttempts', 1).optional(),
            budgetMs: positiveInt('sync.retry.budgetMs', 0).optional(),
            maxRetryAfterMs: positiveInt('sync.retry.maxRetryAfterMs', 0).optional(),
          })
          .optional(),
        fullRefresh: z
          .strictObject({
            everyRuns: positiveInt('sync.fullRefresh.everyRuns', 1).optional(),
            everyDays: z
              .number({
                error: (issue) =>
                  `Expected \`sync.fullRefresh.everyDays\` to be a number > 0, got ${describe(issue.input)}`,
              })
              .positive({
                error: (issue) =>
                  `Expected \`sync.fullRefresh.everyDays\` to be a number > 0, got ${describe(issue.input)}`,
              })
              .optional(),
          })
          .optional(),
      })
      .optional(),
    timezone: z
      .string()
      .refine((zone) => isTimeZone(zone), {
        error: (issue) =>
          `Expected \`timezone\` to be an IANA time zone name such as UTC or Europe/Madrid, got ` +
          `${describe(issue.input)}`,
      })
      .optional(),
    limits: z
      .strictObject({
        maxFileBytes: positiveInt('limits.maxFileBytes', 1).optional(),
        maxFrontMatterBytes: positiveInt('limits.maxFrontMatterBytes', 1).optional(),
        maxFrontMatterKeys: positiveInt('limits.maxFrontMatterKeys', 1).optional(),
        maxYamlAliases: positiveInt('limits.maxYamlAliases', 0).optional(),
        maxNestingDepth: positiveInt('limits.maxNestingDepth', 1).optional(),
        maxEmphasisMarkers: positiveInt('limits.maxEmphasisMarkers', 1).optional(),
        renderBudgetMs: positiveInt('limits.renderBudgetMs', 1).optional(),
      })
      .optional(),
    statusMap: z
      .strictObject({ draft: z.number().int().optional(), published: z.number().int().optional() })
      .optional(),
    resources: z.partialRecord(z.enum(RECORD_RESOURCES), resourceOptions).optional(),
    markdown: z
      .strictObject({
        templates: z.union([z.enum(['auto', 'hugo', 'liquid']), z.literal(false)]).optional(),
        shortcodes: z
          .record(
            z.string(),
            z.custom<ShortcodeHandler>((value) => typeof value === 'function', {
              error: 'Expected each of `markdown.shortcodes` to be a function that returns Markdown or HTML',
            }),
          )
          .optional(),
        site: z
          .strictObject({
            baseUrl: z.string().optional(),
            url: z.string().optional(),
            params: z.record(z.string(), z.unknown()).optional(),
          })
          .optional(),
        remarkPlugins: z.array(pluginEntry('remarkPlugins')).optional(),
        rehypePlugins: z.array(pluginEntry('rehypePlugins')).optional(),
        captions: z.enum(['paragraph', 'figure', 'none']).optional(),
        math: z.union([z.boolean(), z.strictObject({ singleDollar: z.boolean().optional() })]).optional(),
      })
      .optional(),
    languages: z
      .strictObject({
        default: languageTag('languages.default').optional(),
        codes: z.array(languageTag('languages.codes')).optional(),
        field: z.string().min(1).optional(),
      })
      .optional(),
    wire: z
      .strictObject({
        endpointPath: z.string().startsWith('/').optional(),
        pageSize: z
          .number()
          .int()
          .min(1)
          .max(100, {
            error: 'The API never serves more than 100 per page: set `wire.pageSize` to 100 or less',
          })
          .optional(),
        listKeys: z.array(z.string()).optional(),
        idPaths: z.array(z.string()).optional(),
        recordPaths: z.array(z.string().min(1)).optional(),
        mediaIdKeys: z.array(z.string()).optional(),
        idempotencyHeader: z.union([z.string().min(1), z.literal(false)]).optional(),
        payloadKey: z.string().min(1).optional(),
        uploadUrlField: z.string().min(1).optional(),
        mediaAltField: z.union([z.string().min(1), z.literal(false)]).optional(),
        mediaTitleField: z.union([z.string().min(1), z.literal(false)]).optional(),
        changeMarker: z.union([z.string().min(1), z.literal(false)]).optional(),
        changeMarkerLookbackMs: positiveInt('wire.changeMarkerLookbackMs', 0).optional(),
      })
      .optional(),
  });
}

let built: ReturnType<typeof buildConfigSchema> | undefined;
export function configSchema(): ReturnType<typeof buildConfigSchema> {
  return (built ??= buildConfigSchema(zod()));
}

// Keeps the hand-written, documented `UserConfig` and the schema in step.
type Assert<T extends true> = T;
export type _SchemaMatchesUserConfig = Assert<
  UserConfig extends Z.input<ReturnType<typeof buildConfigSchema>> ? true : false
>;

export interface ResolvedResource {
  /** cms-sync field name -> API field name. */
  fields: Record<string, string>;
  passThrough: boolean | string[];
  allowDelete: boolean;
}

/** The validated configuration with every default filled in and environment overrides applied. */
export interface Config {
  /** Absolute project directory (where sync.config.ts is, or the working directory). */
  projectDir: string;
  /** The config file that was loaded, if any. */
  configFile: string | undefined;
  contentDir: string;
  stateDir: string;
  target: { baseUrl: string | undefined; tokenEnv: string; client: ClientFactory | undefined };
  media: {
    publicBaseUrl: string | undefined;
    defaultSize: ImageSize;
    onMissing: MissingMedia;
    retryFailedAfterMs: number;
  };
  sync: {
    concurrency: number;
    rps: number;
    timeoutMs: number;
    prune: boolean;
    maxDeletes: number;
    retry: { maxAttempts?: number; budgetMs?: number; maxRetryAfterMs?: number };
    fullRefresh: { everyRuns: number; everyDays: number };
  };
  /** IANA zone in which dates without an offset are read. */
  timezone: string;
  statusMap: { draft: number; published: number };
  /** Per-file limits (see UserConfig.limits), every default filled in. */
  limits: ContentLimits;
  resources: Record<RecordResource, ResolvedResource>;
  markdown: {
    templates: 'auto' | 'hugo' | 'liquid' | false;
    shortcodes: Record<string, ShortcodeHandler>;
    site: SiteInfo;
    remarkPlugins: PluginEntry[];
    rehypePlugins: PluginEntry[];
    captions: CaptionStyle;
    /** TeX math (see UserConfig.markdown.math): how it is read, or false. */
    math: MathSyntax | false;
  };
  /** Translations (see UserConfig.languages), lower case. */
  languages: { default: string; codes: string[] | undefined; field: string | undefined };
  wire: {
    endpointPath: string;
    pageSize: number;
    listKeys: string[];
    idPaths: string[];
    recordPaths: string[];
    mediaIdKeys: string[];
    idempotencyHeader: string | false;
    payloadKey: string;
    uploadUrlField: string;
    mediaAltField: string | false;
    mediaTitleField: string | false;
    changeMarker: string | false;
    changeMarkerLookbackMs: number;
  };
}

/** What a record gets for an image that cannot be had (see UserConfig.media.onMissing). */
export type MissingMedia = 'error' | 'warn' | 'drop';

/** Where captions go (see UserConfig.markdown.captions). */
export type CaptionStyle = 'paragraph' | 'figure' | 'none';
