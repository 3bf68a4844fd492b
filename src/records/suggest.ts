// "Did you mean": names close to one that is not known, by edit distance.

/**
 * The managed key an unknown key was probably meant to be: the same but for case, or within a
 * small edit distance (one edit for short keys, two for longer). A typo'd `draft` would publish
 * a draft, which cannot be taken back, so it is an error rather than a warning.
 */
export function likelyTypo(key: string, known: ReadonlySet<string>): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    if (lower === name.toLowerCase()) return name;
    const limit = Math.min(name.length, key.length) <= 5 ? 1 : 2;
    const distance = editDistance(lower, name.toLowerCase(), limit);
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Optimal string alignment distance (adjacent swaps count as one edit), capped above `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * Known names ordered by how close they are to `name` (edit distance, then name), at most `count`:
 * what a message about an unknown slug lists.
 */
export function closestNames(name: string, known: Iterable<string>, count: number): string[] {
  const lower = name.toLowerCase();
  return [...new Set(known)]
    .map((candidate) => {
      const other = candidate.toLowerCase();
      return { candidate, distance: editDistance(lower, other, Math.max(lower.length, other.length)) };
    })
    .sort(
      (a, b) =>
        a.distance - b.distance || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0),
    )
    .slice(0, count)
    .map((c) => c.candidate);
}
