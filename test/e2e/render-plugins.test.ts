import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** A remark plugin of the project: every text upper case. */
const UPPER = [
  'export default function upper() {',
  '  const walk = (node) => {',
  "    if (node.type === 'text') node.value = node.value.toUpperCase();",
  '    for (const child of node.children ?? []) walk(child);',
  '  };',
  '  return walk;',
  '}',
  '',
].join('\n');

/** A rehype plugin of the project: a class on every paragraph, from its options. */
const ADD_CLASS = [
  'export default function addClass(options) {',
  '  const walk = (node) => {',
  "    if (node.type === 'element' && node.tagName === 'p') node.properties.className = [options.className];",
  '    for (const child of node.children ?? []) walk(child);',
  '  };',
  '  return walk;',
  '}',
  '',
].join('\n');

const config = (className: string, extra = '') =>
  [
    'export default {',
    '  markdown: {',
    "    remarkPlugins: ['./plugins/upper.mjs'],",
    `    rehypePlugins: [['./plugins/add-class.mjs', { className: '${className}' }]${extra}],`,
    '  },',
    '};',
  ].join('\n');

const article = (title: string, body: string) => `---\ntitle: ${title}\n---\n\n${body}\n`;

interface JsonRun {
  source: { documents: number; rendered: number };
  plan: { changes: Array<{ action: string; key: string }> };
}

describe('remark and rehype plugins from sync.config.ts', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'renders with them, in this thread and on a worker, and renders again exactly what a change of ' +
      'their options or code affects',
    { timeout: 180_000 },
    async () => {
      project = await createProject({
        'sync.config.ts': config('fancy'),
        'plugins/upper.mjs': UPPER,
        'plugins/add-class.mjs': ADD_CLASS,
        'content/articles/one.md': article('One', 'Hello *world*.'),
        // Over the in-thread limit: rendered on a worker thread, which loads the plugins itself.
        'content/articles/long.md': article('Long', `${'quiet words. '.repeat(6000)}\n\nThe end.`),
        'content/categories/news.md': '---\nname: News\n---\n',
      });
      const first = await project.run(['apply']);
      expect(first.code, first.stderr).toBe(0);
      const bodies = async () =>
        Object.fromEntries((await project!.records('article')).map((r) => [r.slug, String(r.body)]));
      let body = await bodies();
      expect(body.one).toBe('<p class="fancy">HELLO <em>WORLD</em>.</p>');
      expect(body.long).toContain('<p class="fancy">QUIET WORDS. QUIET');
      expect(body.long).toContain('<p class="fancy">THE END.</p>');

      const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(rerun.source).toMatchObject({ documents: 3, rendered: 0 });

      // New options: both articles are rendered and updated again; the category is not touched.
      await project.write('sync.config.ts', config('plain'));
      const changed = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(changed.source).toMatchObject({ documents: 3, rendered: 2 });
      expect(changed.plan.changes.filter((c) => c.action === 'update').map((c) => c.key)).toEqual([
        'article/long',
        'article/one',
      ]);
      body = await bodies();
      expect(body.one).toBe('<p class="plain">HELLO <em>WORLD</em>.</p>');
      expect(body.long).toContain('<p class="plain">THE END.</p>');

      // A local plugin is known by its content: an edit renders again.
      await project.write('plugins/upper.mjs', UPPER.replace('toUpperCase', 'toLowerCase'));
      const edited = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(edited.source.rendered).toBe(2);
      expect((await bodies()).one).toBe('<p class="plain">hello <em>world</em>.</p>');
      const still = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(still.source.rendered).toBe(0);
    },
  );

  it(
    'loads npm plugins from the project’s node_modules, and renders again when a version changes',
    { timeout: 120_000 },
    async () => {
      const shout = (version: string) =>
        JSON.stringify({ name: 'rehype-shout', version, type: 'module', exports: './index.js' });
      project = await createProject({
        'sync.config.ts':
          "export default { markdown: { rehypePlugins: ['rehype-minify-whitespace', 'rehype-shout'] } };\n",
        'node_modules/rehype-shout/package.json': shout('1.0.0'),
        'node_modules/rehype-shout/index.js':
          "export default () => (tree) => { tree.children.push({ type: 'text', value: '!' }); };\n",
        'content/articles/one.md': article('One', '- a\n- b\n'),
        'content/categories/news.md': '---\nname: News\n---\n',
      });
      // A real package, installed as npm links one: its own dependencies are found from where it really is.
      const real = path.join(NODE_MODULES, 'rehype-minify-whitespace');
      await symlink(real, path.join(project.dir, 'node_modules/rehype-minify-whitespace'), 'dir');
      const applied = await project.run(['apply']);
      expect(applied.code, applied.stderr).toBe(0);
      expect((await project.records('article'))[0]!.body).toBe('<ul><li>a</li><li>b</li></ul>!');
      const rerun = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(rerun.source.rendered).toBe(0);

      // Same code, new version: a package is known by its name and version, the category not rendered.
      await project.write('node_modules/rehype-shout/package.json', shout('1.0.1'));
      const bumped = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(bumped.source).toMatchObject({ documents: 2, rendered: 1 });
      expect(bumped.plan.changes.filter((c) => c.action !== 'unchanged')).toEqual([]);
    },
  );

  it(
    'stops the run, naming the plugin and why, when one cannot be found or loaded',
    { timeout: 120_000 },
    async () => {
      project = await createProject({
        'sync.config.ts': "export default { markdown: { remarkPlugins: ['./plugins/missing.mjs'] } };\n",
        'plugins/broken.mjs': 'export default function ( {\n',
        'plugins/not-a-plugin.mjs': 'export const x = 1;\n',
        'content/articles/one.md': article('One', 'Hello.'),
      });
      const missing = await project.run(['plan']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        'The remark plugin `./plugins/missing.mjs` in markdown.remarkPlugins could not be found (resolved from ',
      );
      expect(missing.stderr).toContain("Cannot find module './plugins/missing.mjs'");

      await project.write(
        'sync.config.ts',
        "export default { markdown: { rehypePlugins: ['./plugins/broken.mjs'] } };\n",
      );
      const broken = await project.run(['plan']);
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(
        /The rehype plugin `\.\/plugins\/broken\.mjs` in markdown\.rehypePlugins could not be loaded: .*Unexpected/,
      );
      expect(broken.stderr).not.toContain('content/articles/one.md');

      await project.write(
        'sync.config.ts',
        "export default { markdown: { rehypePlugins: ['./plugins/not-a-plugin.mjs'] } };\n",
      );
      const notPlugin = await project.run(['plan']);
      expect(notPlugin.code).toBe(1);
      expect(notPlugin.stderr).toContain(
        'The rehype plugin `./plugins/not-a-plugin.mjs` in markdown.rehypePlugins is not a unified plugin: its ' +
          'default export is missing, not a function.',
      );
      expect(await project.records('article')).toEqual([]);
    },
  );

  it('takes plugins by specifier with JSON options only, and says why', { timeout: 120_000 }, async () => {
    project = await createProject({
      'sync.config.ts': 'export default { markdown: { remarkPlugins: [() => () => {}] } };\n',
      'content/articles/one.md': article('One', 'Hello.'),
    });
    const fn = await project.run(['plan']);
    expect(fn.code).toBe(1);
    expect(fn.stderr).toContain('a plugin is given by its module specifier, not as a function');

    await project.write(
      'sync.config.ts',
      "export default { markdown: { rehypePlugins: [['./x.mjs', { test: /a/ }]] } };\n",
    );
    const regex = await project.run(['plan']);
    expect(regex.code).toBe(1);
    expect(regex.stderr).toContain('the options of `./x.mjs` must be JSON data');
    expect(regex.stderr).toContain('structured clone');
    expect(regex.stderr).toContain('`options.test` is a RegExp');
  });
});
