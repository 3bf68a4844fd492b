/**
 * A small glob matcher for `--only`. Node 20's `path.matchesGlob` exists but prints an
 * ExperimentalWarning on first use, and picomatch is only a dev dependency here.
 *
 * Supported: `*` (any run of characters except `/`), `**` as a whole segment (zero or more
 * directories), `?`, `[abc]` / `[a-z]` / `[!abc]`, `{a,b}` (may nest), and `\` to escape.
 * Paths and patterns use forward slashes; both are NFC-normalized before matching.
 */
export function globToRegExp(pattern: string): RegExp {
  return new RegExp(`^${translate(pattern.normalize('NFC'))}$`, 'u');
}

export function matchesGlob(path: string, pattern: string): boolean {
  return globToRegExp(pattern).test(path.normalize('NFC'));
}

/** A compiled set of `only` globs: a path is selected if it or one of its parent folders matches any. */
export function createPathFilter(patterns: readonly string[]): (relativePath: string) => boolean {
  const regexps = patterns.map((p) => globToRegExp(p.replace(/^\.\//, '').replace(/\/+$/, '')));
  return (relativePath) => {
    const path = relativePath.normalize('NFC');
    // `--only articles` selects everything under content/articles, like a folder argument would.
    const candidates = [path];
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) candidates.push(path.slice(0, i));
    return regexps.some((re) => candidates.some((c) => re.test(c)));
  };
}

function translate(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    if (ch === '*') {
      const atSegmentStart = i === 0 || pattern[i - 1] === '/';
      let j = i;
      while (pattern[j] === '*') j++;
      const atSegmentEnd = j === pattern.length || pattern[j] === '/';
      if (j - i >= 2 && atSegmentStart && atSegmentEnd) {
        if (j === pattern.length) {
          out += '.*';
          i = j;
        } else {
          // `**/` matches zero or more whole directories.
          out += '(?:[^/]*/)*';
          i = j + 1;
        }
      } else {
        out += '[^/]*';
        i = j;
      }
    } else if (ch === '?') {
      out += '[^/]';
      i++;
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        i++;
      } else {
        let body = pattern.slice(i + 1, close);
        const negated = body.startsWith('!') || body.startsWith('^');
        if (negated) body = body.slice(1);
        out += `[${negated ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
        i = close + 1;
      }
    } else if (ch === '{') {
      const close = matchingBrace(pattern, i);
      if (close === -1) {
        out += '\\{';
        i++;
      } else {
        const alternatives = splitTopLevel(pattern.slice(i + 1, close));
        out += `(?:${alternatives.map(translate).join('|')})`;
        i = close + 1;
      }
    } else if (ch === '\\' && i + 1 < pattern.length) {
      out += escapeRegExp(pattern[i + 1]!);
      i += 2;
    } else {
      out += escapeRegExp(ch);
      i++;
    }
  }
  return out;
}

function matchingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === '}') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
