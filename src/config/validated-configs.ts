import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256 } from '../sha256.js';
import { stableJson } from '../stable-json.js';
import { CONFIG_SCHEMA_VERSION } from './schema.js';

/**
 * Configs that passed validation, remembered by a digest of their content and the schema's
 * version, one empty file each in a folder of this user's (mode 0700) under the system's temp
 * folder: the next run with the same config need not load zod to validate it again.
 * Only configs made of plain data are remembered; one holding a function or a class instance
 * could differ without its digest differing, so it is validated on every run.
 */
export interface ValidatedConfigs {
  has(raw: unknown): boolean;
  remember(raw: unknown): void;
}

export function validatedConfigs(folder: string = defaultFolder()): ValidatedConfigs {
  const fileOf = (raw: unknown) =>
    isPlainData(raw) ? path.join(folder, sha256(`${CONFIG_SCHEMA_VERSION}\n${stableJson(raw)}`)) : undefined;
  return {
    has(raw) {
      const file = fileOf(raw);
      return file !== undefined && ownedByMe(folder) && ownedByMe(file);
    },
    remember(raw) {
      const file = fileOf(raw);
      if (!file) return;
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        writeFileSync(file, '', { mode: 0o600 });
      } catch {
        // Read-only or full temp folder: validating every time is only slower.
      }
    },
  };
}

function defaultFolder(): string {
  return path.join(tmpdir(), `cms-sync-${process.getuid?.() ?? 'user'}`, 'valid-configs');
}

/** Exists, belongs to this user and no one else can write to it (nobody planted it). */
function ownedByMe(file: string): boolean {
  try {
    const info = statSync(file);
    if (process.getuid === undefined) return true;
    return info.uid === process.getuid() && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function isPlainData(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainData);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (
    (proto === Object.prototype || proto === null) &&
    Object.values(value as Record<string, unknown>).every(isPlainData)
  );
}
