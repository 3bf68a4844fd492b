import type { Data, Root } from 'mdast';
import remarkMath from 'remark-math';
import type { Processor } from 'unified';
import { visit } from 'unist-util-visit';

export { default as remarkMath } from 'remark-math';

/** How TeX math is read (config `markdown.math`, resolved). */
export interface MathSyntax {
  /** `$…$` is inline math (remark-math's `singleDollarTextMath`); else only `$$…$$` is math. */
  singleDollar: boolean;
}

/**
 * remark-math's syntax, written to HTML as the TeX typed between the delimiters that MathJax
 * (whose inline default is `\(…\)` only) and KaTeX's auto-render both look for by default.
 * remark-math's own HTML (`<code class="language-math">`) is what a server-side renderer such as
 * rehype-katex takes, and the browser renderers skip code. The TeX is a text node, so the HTML
 * serialiser escapes it; no backslash escape or emphasis ever applies inside it.
 */
export function remarkMathAsTex(this: Processor, syntax: MathSyntax) {
  remarkMath.call(this as never, { singleDollarTextMath: syntax.singleDollar });
  return (tree: Root) => {
    visit(tree, (node) => {
      if (node.type !== 'math' && node.type !== 'inlineMath') return;
      const math = node as { type: string; value: string; data?: Data };
      const display = math.type === 'math';
      math.data = {
        hName: display ? 'div' : 'span',
        hProperties: { className: ['math', display ? 'math-display' : 'math-inline'] },
        hChildren: [{ type: 'text', value: display ? `\\[${math.value}\\]` : `\\(${math.value}\\)` }],
      };
    });
  };
}
