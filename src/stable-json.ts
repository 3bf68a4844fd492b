/**
 * JSON with object keys sorted, so equal values always give equal text: for digests (compact)
 * and for state.json (indented, diffs well in git). Objects whose keys are already in order are
 * handed to the native stringifier as they are; only the others are copied with sorted keys. A
 * state read from state.json is already sorted but for the records this run wrote, so writing
 * 10,000 records costs a check and a plain JSON.stringify (~55 ms) instead of a replacer call
 * per value (~95 ms).
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
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! < keys[i]!;
  let changed = !inOrder;
  const children = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const child = object[keys[i]!];
    children[i] = sortedKeys(child);
    if (children[i] !== child) changed = true;
  }
  if (!changed) return value;
  const order = keys.map((key, i) => [key, children[i]] as const);
  if (!inOrder) order.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sorted: Record<string, unknown> = {};
  for (const [key, child] of order) sorted[key] = child;
  return sorted;
}
