import type { FileProblem } from '../errors.js';

/** The warning buildRecord gives for a front matter key it neither reads nor sends. */
const UNSENT_KEY = /^front matter `(.+?)` is not sent to the CMS(.*)$/s;

/** Files named in a collapsed line; the rest are counted. */
const FILES_SHOWN = 3;

/**
 * What makes two warnings "the same kind": the message with what is particular to one file taken
 * out — quoted text (`…`, "…"), numbers and paths — except a front matter key, which is kept,
 * since each key is its own fix (`tags` and `weight` are two lines). So "image `a.png` has alt
 * "Map" here…" in forty files is one kind, and so is a shortcode's failure in each post.
 */
export function warningKind(message: string): string {
  return message
    .replace(/(front matter )`([^`]*)`/g, (_, lead: string, key: string) => `${lead}\0${key}\0`)
    .replace(/`[^`]*`|"(?:[^"\\]|\\.)*"/g, '…')
    .replace(/(?:[\w.-]+\/)+[\w.-]+/g, '…')
    .replace(/\d+/g, '#');
}

/**
 * Problems as a terminal shows them: a warning that many files share (`tags` in every post of an
 * imported blog, the same alt conflict in forty articles) is one line per kind (see warningKind),
 * with how many files have it and the first few, instead of one line per file that buries
 * everything else. The line is the first file's, so an editor still jumps to an example; `--verbose`
 * shows them all. Errors and warnings of a kind no other file shares pass through, in their order.
 */
export function collapseWarnings(problems: readonly FileProblem[]): FileProblem[] {
  const kinds = problems.map((p) => (p.severity === 'warning' ? warningKind(p.message) : undefined));
  const groups = new Map<string, FileProblem[]>();
  problems.forEach((p, i) => {
    const kind = kinds[i];
    if (kind === undefined) return;
    const members = groups.get(kind);
    if (members) members.push(p);
    else groups.set(kind, [p]);
  });
  const out: FileProblem[] = [];
  const done = new Set<string>();
  for (const [i, p] of problems.entries()) {
    const kind = kinds[i];
    const members = kind === undefined ? undefined : groups.get(kind)!;
    if (!members || members.length === 1) {
      out.push(p);
      continue;
    }
    if (done.has(kind!)) continue;
    done.add(kind!);
    out.push({ ...p, message: collapsedMessage(p.message, members) });
  }
  return out;
}

function collapsedMessage(message: string, members: readonly FileProblem[]): string {
  const files = new Set(members.map((m) => m.file));
  const others = members.slice(1, FILES_SHOWN + 1).map((m) => `${m.file}:${m.line}`);
  const rest = members.length - 1 - others.length;
  const listed = rest > 0 ? `${others.join(', ')} and ${rest} more` : others.join(', ');
  const where =
    files.size === members.length
      ? `in ${files.size} files: here, ${listed}`
      : `${members.length} times in ${files.size} files: here, ${listed}`;
  const unsent = UNSENT_KEY.exec(message);
  // The key's hint reads best after the count: "… is not sent to the CMS (in 6 files: …): list it in …".
  if (unsent) return `front matter \`${unsent[1]}\` is not sent to the CMS (${where})${unsent[2]}`;
  return `${message} (${where})`;
}
