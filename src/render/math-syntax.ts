import type { PluggableList } from 'unified';
import type { MathSyntax } from './math.js';

export type { MathSyntax } from './math.js';

type MathModule = typeof import('./math.js');
let loaded: MathModule | undefined;

/**
 * Loads remark-math, for the renderer and the template expander to read math: only a run with
 * `markdown.math` pays for it (its package loads KaTeX with it, which cms-sync does not use).
 */
export async function loadMath(): Promise<void> {
  loaded ??= await import('./math.js');
}

function mathModule(): MathModule {
  if (!loaded) throw new Error('math is read only once loadMath() has loaded remark-math');
  return loaded;
}

/** The remark plugins that read math and write it as TeX for the browser (see remarkMathAsTex). */
export function mathPlugins(math: MathSyntax | false | undefined): PluggableList {
  return math ? [[mathModule().remarkMathAsTex, math]] : [];
}

/** remark-math's syntax alone, for a parser that only needs to know where math is. */
export function mathSyntaxPlugins(math: MathSyntax | false | undefined): PluggableList {
  return math ? [[mathModule().remarkMath, { singleDollarTextMath: math.singleDollar }]] : [];
}
