import type { FileProblem } from '../errors.js';
import type { DesiredRecord, RecordRef } from '../records/build-record.js';
import { closestNames, likelyTypo } from '../records/suggest.js';
import type { RecordResource } from '../resources.js';
import { RESOURCE_TABLE } from '../resources/table.js';
import { idOfKey, type IdBook } from './payload.js';

/** Known slugs listed in a message about an unknown one, closest first. */
const SUGGESTED = 5;

/**
 * The records that cannot be planned because of what they name, each with a positioned problem:
 * a slug that exists neither in content/ nor in the CMS (with the known slugs closest to it), a
 * record whose file has errors, a loop (a category its own ancestor), or a record that names one
 * of those and has no id yet. Pure.
 */
export function checkRelations(input: {
  desired: readonly DesiredRecord[];
  /** The keys of `desired`, when the caller has them as a set already. */
  desiredKeys?: ReadonlySet<string>;
  book: IdBook;
  /** Keys whose file exists but failed: named records that will not be written. */
  protectedKeys: ReadonlySet<string>;
}): { problems: FileProblem[]; failing: Set<string> } {
  const problems: FileProblem[] = [];
  const failing = new Set<string>();
  const byKey = new Map<string, DesiredRecord>();
  for (const record of input.desired) if (record.refs) byKey.set(record.key, record);
  const desiredKeys = input.desiredKeys ?? new Set(input.desired.map((d) => d.key));
  const fail = (record: DesiredRecord, ref: RecordRef, message: string) => {
    problems.push({ file: record.file, line: ref.line, column: 1, severity: 'error', message });
    failing.add(record.key);
  };
  let knownSlugs: Map<RecordResource, string[]> | undefined;

  for (const record of byKey.values()) {
    for (const ref of record.refs!) {
      const { target } = ref.relation;
      for (const slug of ref.slugs) {
        const key = `${target}/${slug}`;
        if (desiredKeys.has(key) || idOfKey(input.book, key) !== undefined) continue;
        if (input.protectedKeys.has(key)) {
          fail(
            record,
            ref,
            `\`${ref.relation.key}\` names ${key}, whose file has errors (see them): fix it first`,
          );
          continue;
        }
        knownSlugs ??= slugsByResource(input.desired, input.book);
        fail(record, ref, unknownSlug(ref, slug, knownSlugs.get(target) ?? []));
      }
    }
  }

  for (const loop of loops(chained(byKey.values()))) {
    const shown = loop.map((k) => k.slice(k.indexOf('/') + 1)).join(' → ');
    for (const [i, key] of loop.slice(0, -1).entries()) {
      const record = byKey.get(key)!;
      const ref = record.refs!.find((r) =>
        r.slugs.includes(loop[i + 1]!.slice(loop[i + 1]!.indexOf('/') + 1)),
      )!;
      fail(
        record,
        ref,
        `\`${ref.relation.key}\` makes a loop (${record.resource} ${shown}): a ${record.resource} cannot be its ` +
          `own ancestor; remove \`${ref.relation.key}\` from one of them`,
      );
    }
  }

  // A record that names one that will not be written, and has no id for it, cannot be sent either.
  for (let more = failing.size > 0; more;) {
    more = false;
    for (const record of byKey.values()) {
      if (failing.has(record.key)) continue;
      const ref = record.refs!.find((r) =>
        r.slugs.some((slug) => {
          const key = `${r.relation.target}/${slug}`;
          return failing.has(key) && idOfKey(input.book, key) === undefined;
        }),
      );
      if (!ref) continue;
      const blocked = ref.slugs.map((slug) => `${ref.relation.target}/${slug}`).find((k) => failing.has(k))!;
      fail(record, ref, `\`${ref.relation.key}\` names ${blocked}, which cannot be written (see its error)`);
      more = true;
    }
  }
  return { problems, failing };
}

function unknownSlug(ref: RecordRef, slug: string, known: readonly string[]): string {
  const { key, target } = ref.relation;
  const folder = RESOURCE_TABLE[target].folder;
  const meant = likelyTypo(slug, new Set(known));
  const closest = closestNames(slug, known, SUGGESTED);
  return (
    `${target} \`${slug}\` does not exist in content/${folder}/ or in the CMS` +
    (meant ? `: did you mean \`${meant}\`?` : '.') +
    (closest.length > 0
      ? ` Known ${target} slugs: ${closest.map((s) => `\`${s}\``).join(', ')}` +
        (known.length > closest.length ? ` (and ${known.length - closest.length} more)` : '') +
        '.'
      : ` There are no ${target} records yet.`) +
    ` Fix \`${key}:\` or add content/${folder}/${slug}.md`
  );
}

/** Every slug a relation may name, by resource: files in content/ and records the CMS holds. */
function slugsByResource(desired: readonly DesiredRecord[], book: IdBook): Map<RecordResource, string[]> {
  const out = new Map<RecordResource, Set<string>>();
  const add = (key: string) => {
    const slash = key.indexOf('/');
    const resource = key.slice(0, slash) as RecordResource;
    let slugs = out.get(resource);
    if (!slugs) out.set(resource, (slugs = new Set()));
    slugs.add(key.slice(slash + 1));
  };
  for (const record of desired) add(record.key);
  for (const key of book.idByKey?.keys() ?? []) add(key);
  for (const slug of book.categoryIdBySlug?.keys() ?? []) add(`category/${slug}`);
  return new Map([...out].map(([resource, slugs]) => [resource, [...slugs]]));
}

/**
 * The records that name a record of their own resource (a category with a parent): only they can
 * sit in a chain or a loop, so the walks below visit them alone, not every record with a relation.
 */
export function chained<
  T extends { key: string; resource: RecordResource; refs?: readonly RecordRef[] | undefined },
>(records: Iterable<T>): Map<string, T> {
  const out = new Map<string, T>();
  // Plain loops: this runs over every record of every run, and a callback per record adds up.
  for (const record of records) {
    if (!record.refs) continue;
    for (const ref of record.refs)
      if (ref.relation.target === record.resource) {
        out.set(record.key, record);
        break;
      }
  }
  return out;
}

/**
 * Loops among records that name records of their own resource (a category's parent chain), each
 * as its keys from one member round to it again (`a → b → a`), each loop once.
 */
function loops(byKey: ReadonlyMap<string, DesiredRecord>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const next = (key: string): string[] => {
    const record = byKey.get(key);
    if (!record) return [];
    return record
      .refs!.filter((r) => r.relation.target === record.resource)
      .flatMap((r) => r.slugs.map((slug) => `${record.resource}/${slug}`));
  };
  // Depth-first with an explicit stack: a hostile chain of thousands of parents must not overflow it.
  for (const start of byKey.keys()) {
    if (done.has(start)) continue;
    const path: string[] = [];
    const onPath = new Set<string>();
    const stack: Array<{ key: string; targets: string[]; i: number }> = [];
    const enter = (key: string) => {
      path.push(key);
      onPath.add(key);
      stack.push({ key, targets: next(key), i: 0 });
    };
    enter(start);
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      if (top.i < top.targets.length) {
        const target = top.targets[top.i++]!;
        if (onPath.has(target)) found.push([...path.slice(path.indexOf(target)), target]);
        else if (!done.has(target) && byKey.has(target)) enter(target);
      } else {
        stack.pop();
        path.pop();
        onPath.delete(top.key);
        done.add(top.key);
      }
    }
  }
  return found;
}

/**
 * How deep each record sits in chains of records of its own resource (a category under a parent
 * under another): 0 for one that names none. Writes go shallow first, deletes deep first.
 */
export function depths(
  named: ReadonlyMap<string, { resource: RecordResource; refs?: readonly RecordRef[] | undefined }>,
): Map<string, number> {
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const targetsOf = (key: string): string[] => {
    const entry = named.get(key)!;
    return (entry.refs ?? [])
      .filter((r) => r.relation.target === entry.resource)
      .flatMap((r) => r.slugs.map((slug) => `${entry.resource}/${slug}`))
      .filter((target) => target !== key);
  };
  // An explicit stack, as in loops(); a member of a loop counts its way round it as depth 0.
  for (const start of named.keys()) {
    const stack = [start];
    while (stack.length > 0) {
      const key = stack.at(-1)!;
      if (depth.has(key)) {
        stack.pop();
        continue;
      }
      // A record that names none (or one outside this plan) starts a chain.
      const targets = named.has(key) ? targetsOf(key) : [];
      const pending = targets.filter((t) => !depth.has(t) && !visiting.has(t));
      if (pending.length > 0 && !visiting.has(key)) {
        visiting.add(key);
        stack.push(...pending);
        continue;
      }
      depth.set(key, Math.max(0, ...targets.map((t) => (depth.get(t) ?? -1) + 1)));
      visiting.delete(key);
      stack.pop();
    }
  }
  return depth;
}
