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
  if (depthOf(fragment) > WRAPPER_DEPTH) {
    flattened = flatten(fragment);
    const depth = depthOf(fragment);
    if (depth > MAX_DEPTH)
      throw new Error(
        `its HTML nests elements ${depth} deep (lists, quotes or tables inside one another), more than the ` +
          `${MAX_DEPTH} cms-sync converts; simplify that part of it and import again`,
      );
  }
  return { tree: fromParse5(fragment, { file: new VFile(html) }) as Root, flattened };
}

/** Replaces each wrapper deeper than WRAPPER_DEPTH by its children, without recursion. */
function flatten(fragment: Parent): number {
  let removed = 0;
  const stack: Array<{ node: Parent; depth: number }> = [{ node: fragment, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const children = node.childNodes;
    for (let i = 0; i < children.length;) {
      const child = children[i]!;
      if (!('childNodes' in child)) {
        i++;
        continue;
      }
      if (depth >= WRAPPER_DEPTH && WRAPPERS.has(child.nodeName)) {
        // What it held takes its place, at its depth, and is looked at in turn.
        for (const grandchild of child.childNodes) grandchild.parentNode = node;
        children.splice(i, 1, ...(child.childNodes as Child[]));
        removed++;
        continue;
      }
      stack.push({ node: child, depth: depth + 1 });
      if ('content' in child) stack.push({ node: child.content, depth: depth + 1 });
      i++;
    }
  }
  return removed;
}

/** How deep the elements go (the fragment's children are at depth 1), without recursion. */
function depthOf(fragment: Parent): number {
  let deepest = 0;
  const stack: Array<{ node: Parent; depth: number }> = [{ node: fragment, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (const child of node.childNodes) {
      if (!('childNodes' in child)) continue;
      stack.push({ node: child, depth: depth + 1 });
      // A `<template>`'s content is a fragment of its own, which the tree built from it holds too.
      if ('content' in child) stack.push({ node: child.content, depth: depth + 1 });
    }
  }
  return deepest;
}
