import type { DesiredRecord } from '../records/build-record.js';
import type { State } from '../state/state-file.js';
import { sourceDigests } from './digest.js';

/** A renamed file: its record keeps the CMS id of the record its old file made. */
export interface Rename {
  /** The state key the record had (its old file's). */
  from: string;
  /** The state key it has now. */
  to: string;
}

/** Why a new file was not taken as a rename though it points at records whose files are gone. */
export interface AmbiguousRename {
  /** Gone records its body matches (when that is what it was matched by). */
  byBody: string[];
  /** Gone records its front matter history (`aliases`, `redirect_from`) names. */
  byHistory: string[];
  /** Other new files that point at one of the same gone records. */
  rivals: string[];
}

export interface RenameDetection {
  /** New key -> old key, for every file taken as renamed. */
  moves: Map<string, string>;
  /** New keys that matched more than one gone record (or one gone record matched by several): created, with a note. */
  ambiguous: Map<string, AmbiguousRename>;
}

/** Jekyll's posts are named `2024-05-01-title.md`, their URLs (and so their redirects) `/…/title.html`. */
const DATED = /^\d{4}-\d{2}-\d{2}-(?=.)/;

/**
 * Renames, found two ways. As git finds them, by content: a record whose key is not in state (a
 * new file, or a file whose name and so slug changed) whose rendered body is byte for byte that
 * of exactly one record in state whose file is gone, of the same resource. And as the site says
 * it: a new file whose front matter keeps its old address (Hugo `aliases`, Jekyll
 * `redirect_from`) names the gone record of that slug, however much else changed.
 *
 * A new file pointing at exactly one gone record that no other new file points at is that
 * record moved. Anything else (history and body pointing at different records, two files
 * claiming one record) is not a move: which one was meant cannot be told. A record whose file is
 * still there is never a candidate.
 *
 * Only records with a non-empty body are matched by body: records without one (categories,
 * users) have nothing that identifies them beyond their slug, which is what changed.
 */
export function detectRenames(input: {
  desired: readonly DesiredRecord[];
  state: State;
  /** Keys of state whose file is still there: never taken as gone. */
  desiredKeys: ReadonlySet<string>;
  /** Keys that failed to read, and files that failed: their records are not gone either. */
  protectedKeys: ReadonlySet<string>;
  failedFiles: ReadonlySet<string>;
  /** With --only: the only records of state that may be gone (see PlanInput.selected). */
  selected?: ReadonlySet<string> | undefined;
}): RenameDetection {
  const moves = new Map<string, string>();
  const ambiguous = new Map<string, AmbiguousRename>();
  const arrivals = input.desired.filter((record) => !input.state.records.has(record.key));
  if (arrivals.length === 0) return { moves, ambiguous };
  // Records of state whose file is gone. None (a cold apply, or no file removed): no arrival is a
  // move, and no arrival's body is read to be matched (in a cold apply, every body in the spool).
  const gone: string[] = [];
  for (const key of input.selected ?? input.state.records.keys())
    if (!input.desiredKeys.has(key) && !input.protectedKeys.has(key)) gone.push(key);
  if (gone.length === 0) return { moves, ambiguous };

  const bodyOf = new Map<DesiredRecord, string>();
  const fieldOf = new Map<string, string>();
  for (const record of arrivals) {
    if (!record.html || record.html.template.trim() === '') continue;
    const body = sourceDigests(record)[record.html.field];
    if (body === undefined) continue;
    fieldOf.set(record.resource, record.html.field);
    bodyOf.set(record, `${record.resource}\0${body}`);
  }
  const named = new Set<string>(arrivals.filter((r) => r.formerSlugs).map((r) => r.resource));
  const withIds = new Set<string>(arrivals.filter((r) => r.siteId).map((r) => r.resource));
  if (bodyOf.size === 0 && named.size === 0 && withIds.size === 0) return { moves, ambiguous };

  const goneByBody = new Map<string, string[]>();
  const goneBySlug = new Map<string, string[]>();
  const goneBySiteId = new Map<string, string[]>();
  const add = (index: Map<string, string[]>, id: string, key: string) => {
    const keys = index.get(id);
    if (keys) keys.push(key);
    else index.set(id, [key]);
  };
  for (const key of gone) {
    const entry = input.state.records.get(key)!;
    const slash = key.indexOf('/');
    const resource = key.slice(0, slash);
    const field = fieldOf.get(resource);
    if (field === undefined && !named.has(resource) && !withIds.has(resource)) continue;
    if (input.failedFiles.has(entry.file)) continue;
    const body = field === undefined ? undefined : entry.source[field];
    if (body !== undefined) add(goneByBody, `${resource}\0${body}`, key);
    const siteId = entry.input?.siteId;
    if (siteId !== undefined && withIds.has(resource)) add(goneBySiteId, `${resource}\0${siteId}`, key);
    if (named.has(resource)) {
      const slug = key.slice(slash + 1);
      add(goneBySlug, `${resource}\0${slug}`, key);
      if (DATED.test(slug)) add(goneBySlug, `${resource}\0${slug.replace(DATED, '')}`, key);
    }
  }

  const candidates = new Map<string, { byBody: string[]; byHistory: string[]; all: string[] }>();
  const claims = new Map<string, string[]>();
  for (const record of arrivals) {
    const body = bodyOf.get(record);
    const byBody = body === undefined ? [] : (goneByBody.get(body) ?? []);
    const slugs = record.formerSlugs?.slugs ?? [];
    const byHistory = [
      ...new Set([
        ...slugs.flatMap((slug) => goneBySlug.get(`${record.resource}\0${slug}`) ?? []),
        ...(record.siteId ? (goneBySiteId.get(`${record.resource}\0${record.siteId.value}`) ?? []) : []),
      ]),
    ];
    // The body settles nothing when it matches several records, but the front matter names one.
    const all = [
      ...new Set(byHistory.length > 0 && byBody.length > 1 ? byHistory : [...byHistory, ...byBody]),
    ];
    if (all.length === 0) continue;
    candidates.set(record.key, { byBody, byHistory, all });
    for (const key of all) add(claims, key, record.key);
  }

  for (const [key, { byBody, byHistory, all }] of candidates) {
    const rivals = [...new Set(all.flatMap((gone) => claims.get(gone)!))].filter((other) => other !== key);
    if (all.length === 1 && rivals.length === 0) moves.set(key, all[0]!);
    else
      ambiguous.set(key, {
        byBody: [...byBody].sort(),
        byHistory: [...byHistory].sort(),
        rivals: rivals.sort(),
      });
  }
  return { moves, ambiguous };
}
