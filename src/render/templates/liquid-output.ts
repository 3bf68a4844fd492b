import { lookUp, type ResolvedSite } from './builtins.js';

/** A Liquid `{{ expr | filter }}` that could be worked out, or why it could not. */
export type OutputValue = { value: string } | { unknown: string };

const FILTERS: Readonly<Record<string, (input: string, site: ResolvedSite) => string>> = {
  relative_url: relativeUrl,
  absolute_url: (input, site) => (isAbsolute(input) ? input : `${site.origin}${relativeUrl(input, site)}`),
  // Eleventy's `url` prefixes only root-relative paths; relative and absolute ones pass unchanged.
  url: (input, site) =>
    input.startsWith('/') && !input.startsWith('//') ? `${site.basePath}${input}` : input,
};

function isAbsolute(input: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(input) || input.startsWith('//');
}

/** Jekyll's `relative_url`: the site's base path in front, with exactly one slash between. */
function relativeUrl(input: string, site: ResolvedSite): string {
  if (isAbsolute(input)) return input;
  return `${site.basePath}${input.startsWith('/') ? '' : '/'}${input}`;
}

/**
 * Works out the outputs a body can hold without the site's templates: string literals,
 * `site.baseurl`, `site.url`, `site.<param>`, the `variables` given (a page's front matter, on
 * import), and the `url` / `relative_url` / `absolute_url` filters. `site.baseurl` and `site.url`
 * are empty when not configured, as in Jekyll.
 */
export function evaluateOutput(
  expression: string,
  site: ResolvedSite,
  variables?: Record<string, unknown>,
): OutputValue {
  const [primary = '', ...filters] = splitPipes(expression);
  let value: string;
  const literal = /^(["'])([\s\S]*)\1$/.exec(primary);
  if (literal) {
    value = literal[2]!;
  } else if (/^site\.baseurl$/i.test(primary)) {
    value = site.basePath;
  } else if (/^site\.url$/i.test(primary)) {
    value = site.origin;
  } else {
    const param = /^site\.(?:params\.)?([\p{L}\p{N}_.-]+)$/u.exec(primary);
    const name = /^[\p{L}_][\p{L}\p{N}_-]*(?:\.[\p{L}\p{N}_-]+)*$/u.test(primary) ? primary : undefined;
    const found = param
      ? lookUp(site.params, param[1]!)
      : variables && name
        ? lookUp(variables, name)
        : undefined;
    if (typeof found !== 'string' && typeof found !== 'number' && typeof found !== 'boolean') {
      return { unknown: `\`${primary}\` is not a value cms-sync knows` };
    }
    value = String(found);
  }
  for (const filter of filters) {
    const name = /^[\w-]+/.exec(filter)?.[0] ?? filter;
    const apply = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
    if (!apply) return { unknown: `the filter \`${name}\` is not one cms-sync knows` };
    value = apply(value, site);
  }
  return { value };
}

function splitPipes(expression: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let from = 0;
  for (let i = 0; i < expression.length; i += 1) {
    const ch = expression[i];
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '|') {
      parts.push(expression.slice(from, i).trim());
      from = i + 1;
    }
  }
  parts.push(expression.slice(from).trim());
  return parts;
}
