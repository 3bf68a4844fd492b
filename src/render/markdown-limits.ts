import type { ContentLimits } from '../source/limits.js';
import { raiseHint } from '../source/limits.js';
import type { RenderProblem } from './rewrite-media.js';

export type MarkdownLimits = Pick<ContentLimits, 'maxNestingDepth' | 'maxEmphasisMarkers'>;

const FENCE = /^(`{3,}|~{3,})/;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)/;
const EMPHASIS = /[*_~]/g;

/**
 * Finds, before parsing, what would make the Markdown parser overflow its stack or take time that
 * grows faster than the text: blocks nested by the hundred (each `>` and list marker on a line,
 * and every two columns of indentation before them, count as a level; a loose estimate that errs
 * towards counting too many) and paragraphs with thousands of emphasis markers, whose matching is
 * quadratic. Fenced code is skipped: nothing in it is parsed as Markdown. Lines are 1-based.
 */
export function checkMarkdownLimits(markdown: string, limits: MarkdownLimits): RenderProblem | undefined {
  let fence: string | undefined;
  let paragraphLine = 0;
  let markers = 0;
  let line = 0;
  for (let start = 0; start <= markdown.length;) {
    let end = markdown.indexOf('\n', start);
    if (end === -1) end = markdown.length;
    const text = markdown.slice(start, end);
    start = end + 1;
    line += 1;

    const { depth, rest } = containers(text);
    const opener = FENCE.exec(rest)?.[1];
    if (fence !== undefined) {
      const closes = opener && opener[0] === fence[0] && opener.length >= fence.length;
      if (closes && rest.slice(opener.length).trim() === '') fence = undefined;
      continue;
    }
    if (opener) {
      fence = opener;
      paragraphLine = 0;
      markers = 0;
      continue;
    }
    if (depth > limits.maxNestingDepth) {
      return {
        line,
        column: 1,
        message:
          `blocks are nested about ${depth} deep here (block quotes and lists), ` +
          `more than the limit of ${limits.maxNestingDepth}; ${raiseHint('maxNestingDepth')}`,
        severity: 'error',
      };
    }
    if (rest.trim() === '') {
      paragraphLine = 0;
      markers = 0;
      continue;
    }
    if (paragraphLine === 0) paragraphLine = line;
    markers += text.match(EMPHASIS)?.length ?? 0;
    if (markers > limits.maxEmphasisMarkers) {
      return {
        line: paragraphLine,
        column: 1,
        message:
          `this paragraph has more than ${limits.maxEmphasisMarkers} emphasis markers (*, _ or ~), ` +
          'whose matching takes time that grows with the square of their number; ' +
          `escape them (\\*) or split the paragraph, or ${raiseHint('maxEmphasisMarkers')}`,
        severity: 'error',
      };
    }
  }
  return undefined;
}

/** The nesting a line's leading block quote markers, list markers and indentation suggest. */
function containers(text: string): { depth: number; rest: string } {
  let i = 0;
  let columns = 0;
  while (text[i] === ' ' || text[i] === '\t') columns += text[i++] === '\t' ? 4 : 1;
  let depth = Math.floor(columns / 2);
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text[i] === '>') {
      depth += 1;
      i += 1;
      continue;
    }
    const marker = LIST_MARKER.exec(text.slice(i, i + 11));
    if (!marker) break;
    depth += 1;
    i += marker[0].length;
  }
  return { depth, rest: text.slice(i) };
}
