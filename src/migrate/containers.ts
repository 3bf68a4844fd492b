/**
 * markdown-it-container's blocks (Eleventy sites that use the plugin):
 *
 * ```
 * ::: warning
 * *here be dragons*
 * :::
 * ```
 *
 * CommonMark has no such block, so cms-sync would publish the `:::` lines as text. Each block the
 * site's renderer read is written as what the plugin's default render makes of it, an HTML
 * `<div class="warning">` around the block's Markdown, with blank lines that keep that Markdown a
 * Markdown block of its own. How the plugin reads them, followed here:
 * - a block opens with a line of three or more `:` (indented less than four spaces) followed by a
 *   name the site registered; the rest of that line is its title;
 * - it closes at the first later line of as many `:` or more and nothing else, or at the end of
 *   the block it is in; a block inside it with as many `:` is closed by that same line, which is
 *   why sites write the outer one with more;
 * - a fenced code block outside any container is code: a `:::` line in it opens nothing.
 *
 * A name registered with a render of the site's own (JavaScript, never run) is written the same
 * way, its title, when it has one, as a bold first line, and named in `ownRender` so the report
 * can say so. The default render shows no title, so a title is dropped then, as the site did.
 */
export interface ContainerRules {
  /** The names the site registered, each with whether it gave a render of its own. Undefined: any name (not read). */
  names?: ReadonlyMap<string, { ownRender: boolean }>;
}

export interface ContainersResult {
  text: string;
  count: number;
  /** Names written as a `<div>` although the site drew them with a render of its own. */
  ownRender: string[];
}

const OPENING = /^( {0,3})(:{3,})[ \t]*(.*)$/;
const CLOSING = /^ {0,3}(:{3,})[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const NAME = /^[\w-]+$/;
/**
 * Blocks inside blocks deeper than this are left as text: no page nests so many, and each level
 * looks ahead for its closing line, so a hostile file of openings alone would cost their square.
 */
export const MAX_CONTAINER_DEPTH = 32;

export function convertContainers(markdown: string, rules: ContainerRules): ContainersResult {
  const result: ContainersResult = { text: markdown, count: 0, ownRender: [] };
  if (!/^ {0,3}:::/m.test(markdown)) return result;
  const lines = markdown.split('\n');
  const out: string[] = [];
  const ownRender = new Set<string>();

  const nameOf = (params: string): string | undefined => {
    const name = params.trim().split(/\s+/, 1)[0] ?? '';
    if (!NAME.test(name)) return undefined;
    if (!rules.names) return name;
    return rules.names.has(name) ? name : undefined;
  };

  // Lines [from, to) of one block's content: containers opened in it end at `to` at the latest.
  const convert = (from: number, to: number, depth: number): void => {
    let fence: string | undefined;
    for (let i = from; i < to; i++) {
      const line = lines[i]!;
      if (fence !== undefined) {
        out.push(line);
        const closing = FENCE.exec(line);
        if (
          closing &&
          closing[1]![0] === fence[0] &&
          closing[1]!.length >= fence.length &&
          /^ {0,3}[`~]+[ \t]*$/.test(line)
        )
          fence = undefined;
        continue;
      }
      const fenceOpen = FENCE.exec(line);
      if (fenceOpen) {
        fence = fenceOpen[1]!;
        out.push(line);
        continue;
      }
      const opening = OPENING.exec(line);
      const name = opening ? nameOf(opening[3]!) : undefined;
      if (!opening || name === undefined || depth >= MAX_CONTAINER_DEPTH) {
        out.push(line);
        continue;
      }
      const markers = opening[2]!.length;
      let end = to;
      for (let j = i + 1; j < to; j++) {
        const closing = CLOSING.exec(lines[j]!);
        if (closing && closing[1]!.length >= markers) {
          end = j;
          break;
        }
      }
      const own = rules.names?.get(name)?.ownRender === true;
      if (own) ownRender.add(name);
      const title = opening[3]!.trim().slice(name.length).trim();
      blankBefore(out);
      out.push(`${opening[1]}<div class="${name}">`, '');
      if (own && title) out.push(`${opening[1]}**${title.replace(/\*/g, '\\*')}**`, '');
      convert(i + 1, end, depth + 1);
      blankBefore(out);
      out.push(`${opening[1]}</div>`);
      // An HTML block runs to the next blank line: what follows the block is Markdown again.
      if (end < to && end + 1 < to && lines[end + 1]!.trim() !== '') out.push('');
      result.count++;
      i = end < to ? end : to - 1;
    }
  };
  convert(0, lines.length, 0);
  result.text = out.join('\n');
  result.ownRender = [...ownRender];
  return result;
}

function blankBefore(out: string[]): void {
  if (out.length > 0 && out.at(-1)!.trim() !== '') out.push('');
}
