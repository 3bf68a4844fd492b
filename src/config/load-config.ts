import { existsSync, readFileSync } from 'node:fs';
import { checkStateDir } from '../state/no-follow.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { z } from 'zod';
import { validatedConfigs, type ValidatedConfigs } from './validated-configs.js';
import { SyncError } from '../errors.js';
import { requireLater } from '../require-later.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import type { ResourceOptions, UserConfig } from './define-config.js';
import { MANAGED_FIELDS, configSchema, type Config, type ResolvedResource } from './schema.js';
import { resolveLimits } from '../source/limits.js';

const jitiModule = requireLater<typeof import('jiti')>('jiti');

export const CONFIG_FILES = [
  'sync.config.ts',
  'sync.config.mts',
  'sync.config.js',
  'sync.config.mjs',
] as const;

/** How long a config may take to load before cms-sync gives up on it. */
export const CONFIG_LOAD_TIMEOUT_MS = 10_000;

/** Environment variables that override the config file. */
export interface ConfigEnv {
  CMS_BASE_URL?: string | undefined;
  CMS_MEDIA_BASE_URL?: string | undefined;
  /** Milliseconds a config may take to load, for one that must wait on something slow. */
  CMS_SYNC_CONFIG_TIMEOUT_MS?: string | undefined;
}

/**
 * Finds and loads `sync.config.*` in `projectDir` (none is fine: every option has a default).
 * A config validated before, unchanged since, is not validated again (see ValidatedConfigs).
 */
export async function loadConfig(
  projectDir: string,
  env: ConfigEnv,
  options: { validated?: ValidatedConfigs; readOnly?: boolean; loadTimeoutMs?: number } = {},
): Promise<Config> {
  const absDir = path.resolve(projectDir);
  const file = CONFIG_FILES.map((name) => path.join(absDir, name)).find((candidate) => existsSync(candidate));
  const timeoutMs =
    options.loadTimeoutMs ?? positiveNumber(env.CMS_SYNC_CONFIG_TIMEOUT_MS) ?? CONFIG_LOAD_TIMEOUT_MS;
  const raw = file ? await importConfigFile(file, timeoutMs) : {};
  const validated = options.validated ?? validatedConfigs();
  const known = isEmpty(raw) || validated.has(raw);
  const config = resolveConfig(raw, { projectDir: absDir, configFile: file, env, validated: known });
  // `plan` writes nothing anywhere: it uses what apply remembered, and remembers nothing itself.
  if (!known && !options.readOnly) validated.remember(raw);
  return config;
}

/** No options at all: valid by definition (every option is optional). */
function isEmpty(raw: unknown): boolean {
  return (
    raw === undefined ||
    raw === null ||
    (typeof raw === 'object' &&
      Object.getPrototypeOf(raw) === Object.prototype &&
      Object.keys(raw).length === 0)
  );
}

async function importConfigFile(file: string, timeoutMs: number): Promise<unknown> {
  // jiti is loaded only when there is a config file to compile, and through its CommonJS entry:
  // its ES entry imports a large CommonJS bundle that Node then scans for exports.
  const { createJiti } = jitiModule();
  // The transpiled file is cached on disk by content hash (node_modules/.cache/jiti), so an
  // unchanged sync.config.ts is not compiled again. No module cache: watch may reload a changed file.
  const jiti = createJiti(import.meta.url, { moduleCache: false, alias: selfAlias() });
  let timer: NodeJS.Timeout | undefined;
  // A ref'd timer on purpose: a config that awaits a promise nothing will ever settle leaves
  // Node with nothing to wait for, and it would exit (code 13) without a word.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConfigTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([jiti.import(file, { default: true }), timeout]);
  } catch (error) {
    throw new SyncError('CMS_SYNC_CONFIG', describeLoadFailure(file, error, timeoutMs), { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

class ConfigTimeout extends Error {}

/**
 * `import { defineConfig } from 'cms-sync'` in sync.config.ts means the cms-sync that is running,
 * wherever it was started from: a project's node_modules, or a checkout run as
 * `node path/to/bin/cms-sync.js` in a project that has no node_modules at all.
 */
function selfAlias(): Record<string, string> {
  try {
    // A package may import itself by its own name (through its "exports"), so this finds the
    // library entry of the cms-sync this file belongs to.
    return { 'cms-sync': createRequire(import.meta.url).resolve('cms-sync') };
  } catch {
    // Not built (no dist/): the config resolves `cms-sync` the ordinary way, from its own folder.
    return {};
  }
}

function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** Says why the config did not load, at the line that caused it where there is one. */
function describeLoadFailure(file: string, error: unknown, timeoutMs: number): string {
  const name = path.basename(file);
  if (error instanceof ConfigTimeout) {
    return (
      `${name} did not finish loading within ${timeoutMs / 1000} s: its default export, or something it awaits, ` +
      'is a promise that has not settled.\nMake every promise the config waits for resolve or reject in time ' +
      '(or allow it longer with CMS_SYNC_CONFIG_TIMEOUT_MS).'
    );
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') {
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec(err.message)?.[1];
    if (missing) {
      // Node names the file whose import failed first; that may be a module the config imports.
      const importer = (err as { requireStack?: string[] }).requireStack?.[0] ?? file;
      const shown = path.relative(path.dirname(file), importer);
      const who = importer === file ? 'it imports' : `${shown}, which it imports, imports`;
      const relative = missing.startsWith('.') || path.isAbsolute(missing);
      return (
        `${name} could not be loaded: ${who} \`${missing}\`, which cannot be found from ${path.dirname(importer)}.\n` +
        `  ${shown}${positionOfText(importer, [`'${missing}'`, `"${missing}"`])}: Cannot find module '${missing}'\n` +
        (relative
          ? 'Check the path of that import.'
          : `Install it (npm install --save-dev ${missing}), or remove the import.`)
      );
    }
  }
  // jiti compiles every config file itself (.mjs and .js too), and reports a syntax error as
  // "ParseError: <what>\n <file>:<line>:<column>".
  const parse = /^ParseError: (.*?)\s*\n\s*\S+?:(\d+):(\d+)\s*$/s.exec(err.message);
  if (parse) {
    const [, what, line, column] = parse;
    const where = `${name}:${line}:${column}`;
    return `${name} could not be loaded: it has a syntax error.\n  ${where}: ${what}\nFix the syntax there.`;
  }
  const frame = new RegExp(`${escapeRegExp(file)}:(\\d+):(\\d+)`).exec(err.stack ?? '');
  const at = frame ? `:${frame[1]}:${frame[2]}` : '';
  return `${name} could not be loaded: it threw an error while running.\n  ${name}${at}: ${err.name}: ${err.message}`;
}

/** `:line:column` of the first of `needles` in the file, or '' when none is there. */
function positionOfText(file: string, needles: string[]): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const index = Math.min(...needles.map((n) => text.indexOf(n)).filter((i) => i >= 0));
  if (!Number.isFinite(index)) return '';
  const before = text.slice(0, index).split('\n');
  return `:${before.length}:${before.at(-1)!.length + 1}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Validates a config object and fills in defaults; messages name the key and the file. */
export function resolveConfig(
  raw: unknown,
  options: { projectDir: string; configFile?: string | undefined; env: ConfigEnv; validated?: boolean },
): Config {
  const fileName = options.configFile ? path.basename(options.configFile) : 'the config';
  let user: UserConfig;
  if (options.validated) {
    // Passed this very schema before, unchanged: the schema transforms nothing, so it is its own result.
    user = (raw ?? {}) as UserConfig;
  } else {
    const parsed = configSchema().safeParse(raw ?? {});
    if (!parsed.success) {
      throw new SyncError(
        'CMS_SYNC_CONFIG',
        `${fileName} is not valid:\n${formatIssues(parsed.error.issues)}`,
      );
    }
    user = parsed.data;
  }
  const baseUrl = nonEmpty(options.env.CMS_BASE_URL) ?? user.target?.baseUrl;
  const publicBaseUrl = nonEmpty(options.env.CMS_MEDIA_BASE_URL) ?? user.media?.publicBaseUrl;
  for (const [name, value] of [
    ['CMS_BASE_URL', options.env.CMS_BASE_URL],
    ['CMS_MEDIA_BASE_URL', options.env.CMS_MEDIA_BASE_URL],
  ] as const) {
    if (nonEmpty(value) && !URL.canParse(value!)) {
      throw new SyncError(
        'CMS_SYNC_CONFIG',
        `The environment variable ${name} is not a URL: set it to something like https://cms.example.com.`,
      );
    }
  }
  const stateDir = path.resolve(options.projectDir, user.stateDir ?? '.cms-sync');
  checkStateDir(stateDir, options.projectDir);
  return {
    projectDir: options.projectDir,
    configFile: options.configFile,
    contentDir: path.resolve(options.projectDir, user.contentDir ?? 'content'),
    stateDir,
    target: {
      baseUrl: baseUrl?.replace(/\/+$/, ''),
      tokenEnv: user.target?.tokenEnv ?? 'CMS_API_TOKEN',
      client: user.target?.client,
    },
    media: {
      publicBaseUrl: publicBaseUrl && !publicBaseUrl.endsWith('/') ? `${publicBaseUrl}/` : publicBaseUrl,
      defaultSize: user.media?.defaultSize ?? 'medium',
      onMissing: user.media?.onMissing ?? 'error',
      retryFailedAfterMs: user.media?.retryFailedAfterMs ?? 24 * 60 * 60 * 1000,
    },
    sync: {
      concurrency: user.sync?.concurrency ?? 4,
      rps: user.sync?.rps ?? 0,
      timeoutMs: user.sync?.timeoutMs ?? 30_000,
      prune: user.sync?.prune ?? false,
      maxDeletes: user.sync?.maxDeletes ?? 20,
      // Defaults live with the retry policy (src/remote/retry.ts); only what the user set is passed.
      retry: { ...user.sync?.retry },
      fullRefresh: {
        everyRuns: user.sync?.fullRefresh?.everyRuns ?? 100,
        everyDays: user.sync?.fullRefresh?.everyDays ?? 7,
      },
    },
    timezone: user.timezone ?? 'UTC',
    statusMap: { draft: user.statusMap?.draft ?? 0, published: user.statusMap?.published ?? 1 },
    limits: resolveLimits(user.limits),
    resources: Object.fromEntries(
      RECORD_RESOURCES.map((r) => [r, resolveResource(r, user.resources?.[r], fileName)]),
    ) as Record<RecordResource, ResolvedResource>,
    markdown: {
      templates: user.markdown?.templates ?? 'auto',
      shortcodes: { ...user.markdown?.shortcodes },
      site: { ...user.markdown?.site },
      remarkPlugins: user.markdown?.remarkPlugins ?? [],
      rehypePlugins: user.markdown?.rehypePlugins ?? [],
      captions: user.markdown?.captions ?? 'paragraph',
      math: mathSyntax(user.markdown?.math),
    },
    languages: {
      default: (user.languages?.default ?? 'en').toLowerCase(),
      codes: user.languages?.codes?.map((code) => code.toLowerCase()),
      field: user.languages?.field,
    },
    wire: {
      endpointPath: user.wire?.endpointPath ?? '/functions/api',
      pageSize: user.wire?.pageSize ?? 100,
      listKeys: user.wire?.listKeys ?? ['items', 'records', 'results', 'rows', 'list', '{resource}s'],
      idPaths: user.wire?.idPaths ?? ['id', 'record.id', 'item.id', 'data.id'],
      recordPaths: user.wire?.recordPaths ?? [],
      mediaIdKeys: user.wire?.mediaIdKeys ?? ['id', 'media_id', 'mediaId'],
      idempotencyHeader: user.wire?.idempotencyHeader ?? 'Idempotency-Key',
      payloadKey: user.wire?.payloadKey ?? 'data',
      uploadUrlField: user.wire?.uploadUrlField ?? 'url',
      mediaAltField: user.wire?.mediaAltField ?? 'alt',
      mediaTitleField: user.wire?.mediaTitleField ?? 'title',
      changeMarker: user.wire?.changeMarker ?? 'updated_at',
      changeMarkerLookbackMs: user.wire?.changeMarkerLookbackMs ?? 5 * 60 * 1000,
    },
  };
}

function resolveResource(
  resource: RecordResource,
  options: ResourceOptions | undefined,
  fileName: string,
): ResolvedResource {
  const managed = MANAGED_FIELDS[resource];
  for (const key of Object.keys(options?.fields ?? {})) {
    if (!managed.includes(key)) {
      throw new SyncError(
        'CMS_SYNC_CONFIG',
        `${fileName} is not valid:\n  resources.${resource}.fields.${key}: \`${key}\` is not a field cms-sync ` +
          `manages for ${resource}; expected one of ${managed.join(', ')}`,
      );
    }
  }
  return {
    fields: Object.fromEntries(managed.map((name) => [name, options?.fields?.[name] ?? name])),
    passThrough: options?.passThrough ?? false,
    allowDelete: options?.allowDelete ?? RESOURCE_TABLE[resource].deletable,
  };
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const key = issue.path.map(String).join('.') || '(root)';
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}: ` +
            `check the spelling against the README's configuration reference`
          : issue.message;
      return `  ${key}: ${message}`;
    })
    .join('\n');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** `markdown.math` with its default filled in: `true` reads `$…$` too, as remark-math does. */
function mathSyntax(option: NonNullable<UserConfig['markdown']>['math']): Config['markdown']['math'] {
  if (option === undefined || option === false) return false;
  return { singleDollar: option === true ? true : (option.singleDollar ?? true) };
}
