/**
 * What one content file may hold (config `limits`). Each bounds the memory or time a single
 * file can take, so that a hostile or broken file costs only itself and never the whole run.
 */
export interface ContentLimits {
  maxFileBytes: number;
  maxFrontMatterBytes: number;
  maxFrontMatterKeys: number;
  maxYamlAliases: number;
  maxNestingDepth: number;
  maxEmphasisMarkers: number;
  renderBudgetMs: number;
}

export const DEFAULT_LIMITS: Readonly<ContentLimits> = Object.freeze({
  maxFileBytes: 5 * 1024 * 1024,
  maxFrontMatterBytes: 256 * 1024,
  maxFrontMatterKeys: 1000,
  maxYamlAliases: 100,
  maxNestingDepth: 100,
  maxEmphasisMarkers: 5000,
  renderBudgetMs: 10_000,
});

/** The limits with every one the user left unset (or set to undefined) at its default. */
export function resolveLimits(
  user: Partial<Record<keyof ContentLimits, number | undefined>> | undefined,
): ContentLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(limits) as Array<keyof ContentLimits>) {
    const value = user?.[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/** The end of a message about a limit: which option raises it. */
export function raiseHint(option: keyof ContentLimits): string {
  return `raise \`limits.${option}\` in sync.config.ts if this file is meant to be this way`;
}

/** A byte count for messages: `5 MiB`, `256 KiB`, `812 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
