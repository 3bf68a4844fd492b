import type { Root } from 'hast';
import { fromParse5 } from 'hast-util-from-parse5';
import { parseFragment, type DefaultTreeAdapterMap } from 'parse5';
import { VFile } from 'vfile';

/**
 * Deeper than this, an element that means nothing of its own in Markdown (a `<div>`, a `<span>`,
 * a `<font>`) is replaced by what it holds. Pasted or generated HTML that opens
 * `<div>`s it never closes nests each in the last, by the thousand, and the tools that turn HTML
 * into Markdown follow the tree one call per level: they would overflow the stack. No page a
 * person reads nests that deep.
 */
export const WRAPPER_DEPTH = 64;

/** How a report names what parseHtml removed. */
export const FLATTENED =
  `wrappers nested more than ${WRAPPER_DEPTH} deep (\`<div>\`s never closed, \`<span>\`s or \`<font>\`s ` +
  'inside one another): removed, what they held kept';

/** Deeper than this even then (lists, quotes or tables inside one another), the HTML is refused. */
export const MAX_DEPTH = 400;

/**
 * More children than this in one element (a table of 50,000 rows, which no page has), the HTML is
 * refused too: the converter passes an element's children as one call's arguments.
 */
export const MAX_CHILDREN = 50_000;

const WRAPPERS: ReadonlySet<string> = new Set([
  'div',
  'span',
  'font',
  'center',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'nav',
]);

type Parent = DefaultTreeAdapterMap['parentNode'];
type Child = DefaultTreeAdapterMap['childNode'];

/**
 * An HTML fragment as a hast tree, as rehype-parse reads it, with what lies deeper than
 * WRAPPER_DEPTH flattened (see above) on parse5's tree, before anything recursive walks it.
 * `flattened` counts the elements removed; HTML no deeper than WRAPPER_DEPTH is left as it is.
 * Throws, saying what to do, for HTML still deeper than MAX_DEPTH after that.
 */
export function parseHtml(html: string): { tree: Root; flattened: number } {
  const fragment = parseFragment(html, { sourceCodeLocationInfo: true, scriptingEnabled: false });
  let flattened = 0;
  let shape = shapeOf(fragment);
  // Measured again only when something was flattened: most HTML is walked once.
  if (shape.depth > WRAPPER_DEPTH) {
    flattened = flatten(fragment);
    shape = shapeOf(fragment);
  }
  const { depth, widest } = shape;
  if (depth > MAX_DEPTH)
    throw new Error(
      `its HTML nests elements ${depth} deep (lists, quotes or tables inside one another), more than the ` +
        `${MAX_DEPTH} cms-sync converts; simplify that part of it and import again`,
    );
  if (widest > MAX_CHILDREN)
    throw new Error(
      `its HTML has an element with ${widest} children side by side, more than the ${MAX_CHILDREN} cms-sync ` +
        'converts; split that part of it and import again',
    );
  return { tree: fromParse5(fragment, { file: new VFile(html) }) as Root, flattened };
}

/** Replaces each wrapper deeper than WRAPPER_DEPTH by its children, without recursion. */
function flatten(fragment: Parent): number {
  let removed = 0;
  const stack: Array<{ node: Parent; depth: number }> = [{ node: fragment, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth < WRAPPER_DEPTH) {
      for (const child of node.childNodes) push(stack, child, depth + 1);
      continue;
    }
    // Its children anew, in one pass: a wrapper is replaced by what it holds, which is looked at
    // in turn (a wrapper may hold wrappers), however many there are.
    const kept: Child[] = [];
    const pending: Child[] = node.childNodes.slice().reverse();
    while (pending.length > 0) {
      const child = pending.pop()!;
      if ('childNodes' in child && WRAPPERS.has(child.nodeName)) {
        for (let k = child.childNodes.length - 1; k >= 0; k--) pending.push(child.childNodes[k]!);
        removed++;
        continue;
      }
      child.parentNode = node;
      kept.push(child);
      push(stack, child, depth + 1);
    }
    node.childNodes = kept;
  }
  return removed;
}

/** A child to walk, with a `<template>`'s content: a fragment of its own, which the tree built from it holds too. */
function push(stack: Array<{ node: Parent; depth: number }>, child: Child, depth: number): void {
  if (!('childNodes' in child)) return;
  stack.push({ node: child, depth });
  if ('content' in child) stack.push({ node: child.content, depth });
}

/**
 * How deep the elements go (the fragment's children are at depth 1), and the most children one
 * has, without recursion.
 */
function shapeOf(fragment: Parent): { depth: number; widest: number } {
  let deepest = 0;
  let widest = 0;
  const stack: Array<{ node: Parent; depth: number }> = [{ node: fragment, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (node.childNodes.length > widest) widest = node.childNodes.length;
    for (const child of node.childNodes) push(stack, child, depth + 1);
  }
  return { depth: deepest, widest };
}
