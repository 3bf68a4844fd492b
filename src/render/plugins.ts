import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginEntry } from '../config/define-config.js';
import { SyncError } from '../errors.js';
import { requireLater } from '../require-later.js';
import { sha256 } from '../sha256.js';
import { digest } from '../digest.js';

const jitiModule = requireLater<typeof import('jiti')>('jiti');

/** `markdown.remarkPlugins` or `markdown.rehypePlugins`: where a plugin runs. */
export type PluginStage = 'remarkPlugins' | 'rehypePlugins';

/** A plugin found on disk, as the render workers are sent it (structured-clonable). */
export interface ResolvedPlugin {
  /** As written in sync.config.ts. */
  specifier: string;
  /** file: URL of the module to import. */
  url: string;
  /** The package's name and version, or the specifier and the sha256 of a local file. */
  name: string;
  version: string;
  options?: unknown;
}

export interface ResolvedPlugins {
  remark: ResolvedPlugin[];
  rehype: ResolvedPlugin[];
}

/** A plugin's function and its options, as `unified().use()` takes them. */
export type LoadedPlugin = [plugin: (...args: never[]) => unknown, options?: unknown];

export interface LoadedPlugins {
  remark: LoadedPlugin[];
  rehype: LoadedPlugin[];
}

/**
 * Why a `markdown.remarkPlugins` / `rehypePlugins` entry cannot be used, or undefined. Entries
 * are module specifiers (with JSON options), never functions: the render workers import each
 * plugin themselves, and only data can be sent to a thread.
 */
export function pluginEntryProblem(entry: unknown): string | undefined {
  if (typeof entry === 'function')
    return (
      'a plugin is given by its module specifier, not as a function, so that the render worker threads can ' +
      "import it too: write 'remark-x' or ['remark-x', { ...options }] (or './plugins/x.js' for a file of the project)"
    );
  const [specifier, options, ...extra] = Array.isArray(entry) ? entry : [entry];
  if (typeof specifier !== 'string' || specifier === '')
    return `expected a module specifier or [specifier, options], got ${JSON.stringify(entry) ?? typeof entry}`;
  if (extra.length > 0)
    return `expected [specifier, options], got ${extra.length + 2} items for \`${specifier}\``;
  const where = notJson(options, 'options');
  return where
    ? `the options of \`${specifier}\` must be JSON data (strings, numbers, booleans, null, arrays, plain objects), ` +
        `since they are sent to the render worker threads (structured clone) and are part of each record's render ` +
        `fingerprint: ${where}`
    : undefined;
}

/** Where `value` stops being JSON data, e.g. "`options.visit` is a function", or undefined. */
function notJson(value: unknown, at: string): string | undefined {
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean')
    return;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `\`${at}\` is ${value}`;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = notJson(item, `${at}[${i}]`);
      if (found) return found;
    }
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null)
      return `\`${at}\` is a ${(value as object).constructor?.name ?? 'class instance'}`;
    for (const [key, item] of Object.entries(value)) {
      const found = notJson(item, `${at}.${key}`);
      if (found) return found;
    }
    return;
  }
  return `\`${at}\` is a ${typeof value}`;
}

/**
 * Finds each plugin as Node would import it from sync.config.ts (ESM conditions, node_modules
 * above the project folder), and what it is: a package by name and version, a file of the
 * project by the sha256 of its content. Nothing is imported here, so a run that renders nothing
 * still knows whether a plugin changed. A plugin that cannot be found stops the run.
 */
export function resolvePlugins(
  projectDir: string,
  markdown: { remarkPlugins: readonly PluginEntry[]; rehypePlugins: readonly PluginEntry[] },
): ResolvedPlugins {
  const parentURL = pathToFileURL(path.join(projectDir, 'sync.config.ts')).href;
  let jiti: ReturnType<(typeof import('jiti'))['createJiti']> | undefined;
  const resolve = (stage: PluginStage, entry: PluginEntry): ResolvedPlugin => {
    const [specifier, options] = typeof entry === 'string' ? [entry] : entry;
    let url: string;
    try {
      jiti ??= jitiModule().createJiti(parentURL, { moduleCache: false });
      url = jiti.esmResolve(specifier, { parentURL });
    } catch (error) {
      throw pluginError(stage, specifier, 'could not be found', error, projectDir);
    }
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    const pkg = file.split(path.sep).includes('node_modules') ? packageOf(file) : undefined;
    let version = pkg?.version;
    if (version === undefined) {
      try {
        version = sha256(readFileSync(file));
      } catch (error) {
        throw pluginError(stage, specifier, 'could not be read', error, projectDir);
      }
    }
    return {
      specifier,
      url,
      name: pkg?.name ?? specifier,
      version,
      ...(options === undefined ? {} : { options }),
    };
  };
  return {
    remark: markdown.remarkPlugins.map((entry) => resolve('remarkPlugins', entry)),
    rehype: markdown.rehypePlugins.map((entry) => resolve('rehypePlugins', entry)),
  };
}

/** The name and version of the package a file belongs to (the nearest package.json with a name). */
function packageOf(file: string): { name: string; version: string } | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (typeof name === 'string' && typeof version === 'string') return { name, version };
    } catch {
      // A package.json without a name (or unreadable) is not the package; look further up.
    }
  }
  return undefined;
}

/**
 * What of the plugins changes a rendered body: each one's name, version and options, in order.
 * Undefined without plugins, so records rendered before plugins existed are not rendered again.
 */
export function pluginsFingerprint(plugins: ResolvedPlugins): string | undefined {
  if (plugins.remark.length === 0 && plugins.rehype.length === 0) return undefined;
  const of = (list: ResolvedPlugin[]) =>
    list.map(({ name, version, options }) => ({ name, version, options }));
  return digest({ remark: of(plugins.remark), rehype: of(plugins.rehype) });
}

/** Imports each plugin (in this thread or a render worker): its default export must be a function. */
export async function importPlugins(plugins: ResolvedPlugins): Promise<LoadedPlugins> {
  const load = async (stage: PluginStage, plugin: ResolvedPlugin): Promise<LoadedPlugin> => {
    let module: { default?: unknown };
    try {
      module = (await import(plugin.url)) as { default?: unknown };
    } catch (error) {
      throw pluginError(stage, plugin.specifier, 'could not be loaded', error);
    }
    const fn = module.default;
    if (typeof fn !== 'function')
      throw pluginError(
        stage,
        plugin.specifier,
        'is not a unified plugin',
        new Error(`its default export is ${fn === undefined ? 'missing' : `a ${typeof fn}`}, not a function`),
      );
    const use = fn as LoadedPlugin[0];
    return plugin.options === undefined ? [use] : [use, plugin.options];
  };
  return {
    remark: await Promise.all(plugins.remark.map((p) => load('remarkPlugins', p))),
    rehype: await Promise.all(plugins.rehype.map((p) => load('rehypePlugins', p))),
  };
}

/** A plugin that cannot be found or loaded: the run stops, naming it and why. */
export class PluginLoadError extends SyncError {
  constructor(
    readonly stage: PluginStage,
    readonly specifier: string,
    /** The first line of the cause's message. */
    readonly reason: string,
    message: string,
    cause: unknown,
  ) {
    super('CMS_SYNC_CONFIG', message, { cause });
  }
}

export function pluginError(
  stage: PluginStage,
  specifier: string,
  what: string,
  cause: unknown,
  projectDir?: string,
): PluginLoadError {
  const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!;
  const from = projectDir ? ` (resolved from ${projectDir}, as from sync.config.ts)` : '';
  const message =
    `The ${stage === 'remarkPlugins' ? 'remark' : 'rehype'} plugin \`${specifier}\` in markdown.${stage} ${what}` +
    `${from}: ${reason}. Install the package, or fix the path in sync.config.ts.`;
  return new PluginLoadError(stage, specifier, reason, message, cause);
}
