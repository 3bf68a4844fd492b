import type { Heading, Root } from 'mdast';
import { visit } from 'unist-util-visit';
import type { VFile } from 'vfile';

/**
 * A heading's own id, written after it as Hugo (Goldmark), kramdown, Pandoc and PHP Markdown
 * Extra read it: `## Setup {#setup}`, with other attributes beside it (`{#setup .wide}`,
 * kramdown's `{: #setup}`). CommonMark would publish the braces as text; here they go, and the
 * heading gets the id, so a link to `#setup` reaches it. Classes and other attributes are dropped
 * with them: the CMS's pages have no styles for a site's classes. Braces that are not such a list
 * (`## Sets {a, b}`) stay text.
 */
export function remarkHeadingIds() {
  return (tree: Root, file: VFile) => {
    visit(tree, 'heading', (heading: Heading) => {
      const last = heading.children.at(-1);
      if (last?.type !== 'text') return;
      const found = trailingList(last.value);
      if (!found || escaped(heading, file)) return;
      const id = idOf(found.list);
      if (id === undefined) return;
      const text = last.value.slice(0, found.start);
      // Nothing before the braces: not a heading with attributes, but braces as its whole text.
      if (text.trim() === '' && heading.children.length === 1) return;
      if (text === '') heading.children.pop();
      else last.value = text;
      if (id) (heading.data ??= {}).hProperties = { ...heading.data?.hProperties, id };
    });
  };
}

/** Whether the heading's source escapes its last opening brace (`\{#not-an-id}`): then it is text. */
function escaped(heading: Heading, file: VFile): boolean {
  const start = heading.position?.start.offset;
  const end = heading.position?.end.offset;
  if (start === undefined || end === undefined) return false;
  const source = String(file.value);
  const brace = source.lastIndexOf('{', end);
  return brace > start && source[brace - 1] === '\\';
}

/**
 * Blanks, then `{…}` (or `{:…}`) at the very end of the heading's text: where the blanks start,
 * and what the braces hold. Found from the end, in one pass (a heading may be long and hostile).
 */
function trailingList(text: string): { start: number; list: string } | undefined {
  let end = text.length;
  while (end > 0 && isBlank(text[end - 1])) end--;
  if (text[end - 1] !== '}') return undefined;
  const open = text.lastIndexOf('{', end - 1);
  if (open < 1 || !isBlank(text[open - 1])) return undefined;
  const list = text.slice(open + 1, end - 1);
  if (list.includes('}') || list.includes('\n')) return undefined;
  let start = open;
  while (start > 0 && isBlank(text[start - 1])) start--;
  return { start, list: list.startsWith(':') ? list.slice(1) : list };
}

const isBlank = (char: string | undefined) => char === ' ' || char === '\t';
const ID = /^#([^\s"'<>{}#]+)$/;
const CLASS = /^\.[^\s"'<>{}]+$/;
const KEY_VALUE = /^[A-Za-z_][\w:-]*=(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+)$/;

/**
 * The id an attribute list sets ('' when it sets none), or undefined when the text is not an
 * attribute list. Of two ids, the last is taken, as Goldmark does.
 */
function idOf(list: string): string | undefined {
  const tokens = list.trim().split(/[ \t]+/);
  if (tokens.length === 0 || tokens[0] === '') return undefined;
  let id = '';
  for (const token of tokens) {
    const match = ID.exec(token);
    if (match) id = match[1]!;
    else if (!CLASS.test(token) && !KEY_VALUE.test(token)) return undefined;
  }
  return id;
}
