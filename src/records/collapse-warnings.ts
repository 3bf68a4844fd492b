import type { FileProblem } from '../errors.js';

/** The warning buildRecord gives for a front matter key it neither reads nor sends. */
const UNSENT_KEY = /^front matter `(.+?)` is not sent to the CMS(.*)$/s;

/** Files named in a collapsed line; the rest are counted. */
const FILES_SHOWN = 3;

/**
 * Problems as a terminal shows them: a front matter key that many files carry and cms-sync does
 * not send (`tags` in every post of an imported blog) is one warning line per key, with how many
 * files carry it and the first few, instead of one line per file that buries everything else.
 * The line is positioned at the first file, so an editor still jumps to an example. Errors and
 * every other warning pass through as they are, in their order.
 */
export function collapseWarnings(problems: readonly FileProblem[]): FileProblem[] {
  const groups = new Map<string, FileProblem[]>();
  const matches = problems.map((p) => (p.severity === 'warning' ? UNSENT_KEY.exec(p.message) : null));
  problems.forEach((p, i) => {
    const match = matches[i];
    if (!match) return;
    // The message's hint names the resource (resources.article.passThrough): one line per key and hint.
    const group = `${match[1]}\0${match[2]}`;
    const members = groups.get(group);
    if (members) members.push(p);
    else groups.set(group, [p]);
  });
  const out: FileProblem[] = [];
  const done = new Set<string>();
  for (const [i, p] of problems.entries()) {
    const match = matches[i];
    if (!match) {
      out.push(p);
      continue;
    }
    const group = `${match[1]}\0${match[2]}`;
    const members = groups.get(group)!;
    if (members.length === 1) {
      out.push(p);
      continue;
    }
    if (done.has(group)) continue;
    done.add(group);
    const files = new Set(members.map((m) => m.file));
    const others = members.slice(1, FILES_SHOWN + 1).map((m) => `${m.file}:${m.line}`);
    const rest = files.size - 1 - others.length;
    const listed = rest > 0 ? `${others.join(', ')} and ${rest} more` : others.join(', ');
    out.push({
      ...p,
      message:
        `front matter \`${match[1]}\` is not sent to the CMS (in ${files.size} files: here, ${listed})` +
        match[2],
    });
  }
  return out;
}
