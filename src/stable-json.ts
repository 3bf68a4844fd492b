import { byCodeUnit } from './compare.js';

/**
 * JSON with object keys sorted, so equal values always give equal text: for digests (compact)
 * and for state.json (indented, diffs well in git). Objects whose keys are already in order are
 * handed to the native stringifier as they are; only the others are copied with sorted keys. A
 * state read from state.json is already sorted but for the records this run wrote, so writing
 * it costs a check and a plain JSON.stringify instead of a replacer call per value.
 */
export function stableJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortedKeys(value), null, indent) ?? 'null';
}

/** `value` itself when every object in it has sorted keys, else a copy where each one has. */
function sortedKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = sortedKeys(value[i]);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.some((key, i) => i > 0 && !(keys[i - 1]! < key))) {
    const sorted: Record<string, unknown> = {};
    for (const key of keys.sort(byCodeUnit)) sorted[key] = sortedKeys(object[key]);
    return sorted;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of keys) {
    const child = sortedKeys(object[key]);
    if (child !== object[key]) (copy ??= { ...object })[key] = child;
  }
  return copy ?? object;
}
