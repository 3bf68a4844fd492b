// js-yaml as the bundle's gray-matter (scripts/bundle.mjs) sees it: loaded on first use, where
// gray-matter requires it as it loads, for its default YAML engine. cms-sync parses front matter
// with `yaml` (src/source/front-matter.ts), so reading documents never calls js-yaml, which
// is many files and loads esprima. gray-matter takes these two functions of it and no other.
import { createRequire } from 'node:module';

let jsYaml;
// Resolved from gray-matter, as gray-matter itself resolves it.
const load = () => {
  if (jsYaml === undefined) {
    const require = createRequire(import.meta.url);
    jsYaml = createRequire(require.resolve('gray-matter'))('js-yaml');
  }
  return jsYaml;
};

export const safeLoad = (...args) => load().safeLoad(...args);
export const safeDump = (...args) => load().safeDump(...args);
