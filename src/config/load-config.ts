import { existsSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { validatedConfigs, type ValidatedConfigs } from './validated-configs.js';
import { SyncError } from '../errors.js';
import { requireLater } from '../require-later.js';
import { RECORD_RESOURCES, type RecordResource } from '../resources.js';
import type { ResourceOptions, UserConfig } from './define-config.js';
import { MANAGED_FIELDS, configSchema, type Config, type ResolvedResource } from './schema.js';

const jitiModule = requireLater<typeof import('jiti')>('jiti');

export const CONFIG_FILES = ['sync.config.ts', 'sync.config.mts', 'sync.config.js', 'sync.config.mjs'] as const;

/** Environment variables that override the config file. */
export interface ConfigEnv {
  CMS_BASE_URL?: string | undefined;
  CMS_MEDIA_BASE_URL?: string | undefined;
}

/**
 * Finds and loads `sync.config.*` in `projectDir` (none is fine: every option has a default).
 * A config validated before, unchanged since, is not validated again (see ValidatedConfigs).
 */
export async function loadConfig(projectDir: string, env: ConfigEnv, options: { validated?: ValidatedConfigs; readOnly?: boolean } = {}): Promise<Config> {
  const absDir = path.resolve(projectDir);
  const file = CONFIG_FILES.map((name) => path.join(absDir, name)).find((candidate) => existsSync(candidate));
  const raw = file ? await importConfigFile(file) : {};
  const validated = options.validated ?? validatedConfigs();
  const known = isEmpty(raw) || validated.has(raw);
  const config = resolveConfig(raw, { projectDir: absDir, configFile: file, env, validated: known });
  // `plan` writes nothing anywhere: it uses what apply remembered, and remembers nothing itself.
  if (!known && !options.readOnly) validated.remember(raw);
  return config;
}

/** No options at all: valid by definition (every option is optional). */
function isEmpty(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'object' && Object.getPrototypeOf(raw) === Object.prototype && Object.keys(raw).length === 0);
}

async function importConfigFile(file: string): Promise<unknown> {
  // jiti is loaded only when there is a config file to compile, and through its CommonJS entry:
  // its ES entry imports a large CommonJS bundle that Node then scans for exports.
  const { createJiti } = jitiModule();
  // The transpiled file is cached on disk by content hash (node_modules/.cache/jiti): compiling
  // sync.config.ts on every run would cost more than the rest of a no-op. No module cache: watch may reload a changed file.
  const jiti = createJiti(import.meta.url, { moduleCache: false });
  try {
    return await jiti.import(file, { default: true });
  } catch (error) {
    throw new SyncError('CMS_SYNC_CONFIG', `${path.basename(file)} could not be loaded: ${(error as Error).message}\nFix the file so that it exports \`defineConfig({...})\` as its default export.`, { cause: error });
  }
}

/** Validates a config object and fills in defaults; messages name the key and the file. */
export function resolveConfig(raw: unknown, options: { projectDir: string; configFile?: string | undefined; env: ConfigEnv; validated?: boolean }): Config {
  const fileName = options.configFile ? path.basename(options.configFile) : 'the config';
  let user: UserConfig;
  if (options.validated) {
    // Passed this very schema before, unchanged: the schema transforms nothing, so it is its own result.
    user = (raw ?? {}) as UserConfig;
  } else {
    const parsed = configSchema().safeParse(raw ?? {});
    if (!parsed.success) {
      throw new SyncError('CMS_SYNC_CONFIG', `${fileName} is not valid:\n${formatIssues(parsed.error.issues)}`);
    }
    user = parsed.data;
  }
  const baseUrl = nonEmpty(options.env.CMS_BASE_URL) ?? user.target?.baseUrl;
  const publicBaseUrl = nonEmpty(options.env.CMS_MEDIA_BASE_URL) ?? user.media?.publicBaseUrl;
  for (const [name, value] of [['CMS_BASE_URL', options.env.CMS_BASE_URL], ['CMS_MEDIA_BASE_URL', options.env.CMS_MEDIA_BASE_URL]] as const) {
    if (nonEmpty(value) && !URL.canParse(value!)) {
      throw new SyncError('CMS_SYNC_CONFIG', `The environment variable ${name} is not a URL: set it to something like https://cms.example.com.`);
    }
  }
  return {
    projectDir: options.projectDir,
    configFile: options.configFile,
    contentDir: path.resolve(options.projectDir, user.contentDir ?? 'content'),
    stateDir: path.resolve(options.projectDir, user.stateDir ?? '.cms-sync'),
    target: { baseUrl: baseUrl?.replace(/\/+$/, ''), tokenEnv: user.target?.tokenEnv ?? 'CMS_API_TOKEN' },
    media: {
      publicBaseUrl: publicBaseUrl && !publicBaseUrl.endsWith('/') ? `${publicBaseUrl}/` : publicBaseUrl,
      defaultSize: user.media?.defaultSize ?? 'medium',
    },
    sync: {
      concurrency: user.sync?.concurrency ?? 4,
      rps: user.sync?.rps ?? 0,
      timeoutMs: user.sync?.timeoutMs ?? 30_000,
      prune: user.sync?.prune ?? false,
      maxDeletes: user.sync?.maxDeletes ?? 20,
      // Defaults live with the retry policy (src/remote/retry.ts); only what the user set is passed.
      retry: { ...user.sync?.retry },
    },
    statusMap: { draft: user.statusMap?.draft ?? 0, published: user.statusMap?.published ?? 1 },
    resources: Object.fromEntries(RECORD_RESOURCES.map((r) => [r, resolveResource(r, user.resources?.[r], fileName)])) as Record<RecordResource, ResolvedResource>,
    wire: {
      endpointPath: user.wire?.endpointPath ?? '/functions/api',
      pageSize: user.wire?.pageSize ?? 100,
      listKeys: user.wire?.listKeys ?? ['items', 'records', 'results', 'rows', 'list', '{resource}s'],
      idPaths: user.wire?.idPaths ?? ['id', 'record.id', 'item.id', 'data.id'],
      mediaIdKeys: user.wire?.mediaIdKeys ?? ['id', 'media_id', 'mediaId'],
      idempotencyHeader: user.wire?.idempotencyHeader ?? 'Idempotency-Key',
      payloadKey: user.wire?.payloadKey ?? 'data',
      uploadUrlField: user.wire?.uploadUrlField ?? 'url',
      changeMarker: user.wire?.changeMarker ?? 'updated_at',
    },
  };
}

function resolveResource(resource: RecordResource, options: ResourceOptions | undefined, fileName: string): ResolvedResource {
  const managed = MANAGED_FIELDS[resource];
  for (const key of Object.keys(options?.fields ?? {})) {
    if (!managed.includes(key)) {
      throw new SyncError('CMS_SYNC_CONFIG', `${fileName} is not valid:\n  resources.${resource}.fields.${key}: \`${key}\` is not a field cms-sync manages for ${resource}; expected one of ${managed.join(', ')}`);
    }
  }
  return {
    fields: Object.fromEntries(managed.map((name) => [name, options?.fields?.[name] ?? name])),
    passThrough: options?.passThrough ?? false,
    allowDelete: options?.allowDelete ?? resource !== 'user',
  };
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const key = issue.path.map(String).join('.') || '(root)';
      const message = issue.code === 'unrecognized_keys' ? `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}: check the spelling against the README's configuration reference` : issue.message;
      return `  ${key}: ${message}`;
    })
    .join('\n');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
