import type { Code, InlineCode, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { parseTemplates, type TemplateNode } from '../render/templates/parse-templates.js';

const parser = unified().use(remarkParse).freeze();

/**
 * Jekyll's `{% raw %}` shows template syntax as text. Expanded at import, its inside would be
 * bare `{{ … }}` in the written file, which sync would then read as a template it does not know
 * and warn about. So a raw block that holds template syntax is set aside before expansion and put
 * back after it: in prose still wrapped in `{% raw %}` (which sync reads the same way), in code
 * (a highlight block, a code span) as its bare inside, since sync leaves Liquid in code alone.
 */
export function protectRaw(body: string): {
  text: string;
  restore: (expanded: string) => string;
  /** A 0-based line of the set-aside text -> that line in `body` (raw blocks may span lines). */
  bodyLine: (line: number) => number;
} {
  const identity = { text: body, restore: (expanded: string) => expanded, bodyLine: (line: number) => line };
  if (!body.includes('raw')) return identity;
  const parsed = parseTemplates(body, { dialect: 'liquid', isCode: () => false, maxDepth: 20 });
  const raws: Array<{ start: number; end: number; inner: string }> = [];
  const collect = (nodes: TemplateNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'verbatim' && node.name === 'raw') {
        const inner = body.slice(node.innerStart, node.innerEnd);
        if (inner.includes('{{') || inner.includes('{%'))
          raws.push({ start: node.start, end: node.end, inner });
      } else if (node.kind === 'tag') collect(node.children);
    }
  };
  collect(parsed.nodes);
  if (raws.length === 0) return identity;

  // A token of letters and digits: no template, Markdown or autolink syntax touches it.
  const nonce = Math.random().toString(36).slice(2, 10);
  const token = (i: number) => `cmssyncraw${nonce}x${i}x`;
  let text = body;
  for (let i = raws.length - 1; i >= 0; i--)
    text = text.slice(0, raws[i]!.start) + token(i) + text.slice(raws[i]!.end);
  // Where each token sits (its 0-based line in `text`) and how many line breaks it stands for.
  const shifts: Array<{ line: number; removed: number }> = [];
  let removedBefore = 0;
  for (const raw of raws) {
    const line = countBreaks(body.slice(0, raw.start)) - removedBefore;
    const removed = countBreaks(body.slice(raw.start, raw.end));
    shifts.push({ line, removed });
    removedBefore += removed;
  }
  return {
    text,
    bodyLine: (line) => line + shifts.reduce((sum, s) => (s.line < line ? sum + s.removed : sum), 0),
    restore(expanded) {
      const pattern = new RegExp(`cmssyncraw${nonce}x(\\d+)x`, 'g');
      if (!pattern.test(expanded)) return expanded;
      const code: Array<[number, number]> = [];
      visit(parser.parse(expanded) as Root, (node) => {
        if ((node.type === 'code' || node.type === 'inlineCode') && node.position) {
          const { start, end } = (node as Code | InlineCode).position!;
          code.push([start.offset ?? 0, end.offset ?? 0]);
        }
      });
      return expanded.replace(pattern, (_, i: string, at: number) => {
        const { inner } = raws[Number(i)]!;
        return code.some(([s, e]) => at >= s && at < e) ? inner : `{% raw %}${inner}{% endraw %}`;
      });
    },
  };
}

function countBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
