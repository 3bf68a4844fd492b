import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

const article = (title: string, body: string) => `---\ntitle: ${title}\n---\n\n${body}\n`;

/** TeX that CommonMark would change: a row break, escaped braces and a norm, a product in stars. */
const MATRIX = String.raw`\begin{pmatrix} a & b \\ c & d \end{pmatrix} \quad \|x\| \quad \{1,2\}`;

const FORMULAS = [
  String.raw`Inline $a*b*c$ and $$\{1,2\}$$ here, with a < b.`,
  '',
  '$$',
  MATRIX,
  '$$',
  '',
  'In code: `$x*y*z$` and',
  '',
  '```tex',
  String.raw`$$ a \\ b $$`,
  '```',
  '',
  // Liquid to the expander, were it not math: left as typed.
  '$$',
  String.raw`{{n}\choose{k}}`,
  '$$',
].join('\n');

const config = (math: string) => `export default { markdown: { ${math} } };\n`;

interface JsonRun {
  source: { documents: number; rendered: number };
  plan: { changes: Array<{ action: string; key: string }> };
}

describe('markdown.math: TeX reaches readers as typed', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'is off by default (bodies as before), and on renders math as its TeX in \\(…\\) and \\[…\\], in ' +
      'this thread and on a worker, rendering again only articles and pages and updating those it changes',
    { timeout: 180_000 },
    async () => {
      project = await createProject({
        'sync.config.ts': config(''),
        'content/articles/math.md': article('Math', FORMULAS),
        // Over the in-thread limit: rendered on a worker thread, which must be told of math too.
        'content/articles/long.md': article('Long', `${'quiet words. '.repeat(6000)}\n\nA sum $x_1 + x_2$.`),
        'content/articles/prices.md': article('Prices', 'From $5 to $10, *on sale*.'),
        'content/articles/plain.md': article('Plain', 'No formula, *none*.'),
        'content/categories/news.md': '---\nname: News\n---\n',
      });
      const first = await project.run(['apply']);
      expect(first.code, first.stderr).toBe(0);
      const bodies = async () =>
        Object.fromEntries((await project!.records('article')).map((r) => [r.slug, String(r.body)]));
      let body = await bodies();
      // Off: what CommonMark makes of it, as before the option existed.
      expect(body.math).toBe(
        [
          '<p>Inline $a<em>b</em>c$ and $$' + '{1,2}$$ here, with a &#x3C; b.</p>',
          String.raw`<p>$$`,
          String.raw`\begin{pmatrix} a &#x26; b \ c &#x26; d \end{pmatrix} \quad |x| \quad {1,2}`,
          '$$</p>',
          '<p>In code: <code>$x*y*z$</code> and</p>',
          '<pre><code class="language-tex">$$ a \\\\ b $$',
          '</code></pre>',
          String.raw`<p>$$`,
          String.raw`{{n}\choose{k}}`,
          '$$</p>',
        ].join('\n'),
      );
      expect(body.prices).toBe('<p>From $5 to $10, <em>on sale</em>.</p>');

      await project.write('sync.config.ts', config('math: true'));
      const on = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      // The category is not rendered again; of the articles, only those whose HTML changed are updated.
      expect(on.source).toMatchObject({ documents: 5, rendered: 4 });
      expect(on.plan.changes.filter((c) => c.action === 'update').map((c) => c.key)).toEqual([
        'article/long',
        'article/math',
        'article/prices',
      ]);
      body = await bodies();
      expect(body.math).toBe(
        [
          String.raw`<p>Inline <span class="math math-inline">\(a*b*c\)</span> and ` +
            String.raw`<span class="math math-inline">\(\{1,2\}\)</span> here, with a &#x3C; b.</p>`,
          `<div class="math math-display">\\[${MATRIX.replaceAll('&', '&#x26;')}\\]</div>`,
          '<p>In code: <code>$x*y*z$</code> and</p>',
          '<pre><code class="language-tex">$$ a \\\\ b $$',
          '</code></pre>',
          String.raw`<div class="math math-display">\[{{n}\choose{k}}\]</div>`,
        ].join('\n'),
      );
      expect(body.long).toContain('<p>A sum <span class="math math-inline">\\(x_1 + x_2\\)</span>.</p>');
      // remark-math's single dollars: `$5 to $` is math, which is why `singleDollar: false` exists.
      expect(body.prices).toBe(
        '<p>From <span class="math math-inline">\\(5 to \\)</span>10, <em>on sale</em>.</p>',
      );

      const still = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(still.source.rendered).toBe(0);

      // Only `$$`: prices are text again (and so is `$a*b*c$`).
      await project.write('sync.config.ts', config('math: { singleDollar: false }'));
      const double = JSON.parse((await project.run(['apply', '--json'])).stdout) as JsonRun;
      expect(double.source.rendered).toBe(4);
      expect(double.plan.changes.filter((c) => c.action === 'update').map((c) => c.key)).toEqual([
        'article/long',
        'article/math',
        'article/prices',
      ]);
      body = await bodies();
      expect(body.prices).toBe('<p>From $5 to $10, <em>on sale</em>.</p>');
      expect(body.math).toContain(
        String.raw`<p>Inline $a<em>b</em>c$ and <span class="math math-inline">\(\{1,2\}\)</span>`,
      );
      expect(body.math).toContain(
        `<div class="math math-display">\\[${MATRIX.replaceAll('&', '&#x26;')}\\]</div>`,
      );
      expect(body.long).toContain('<p>A sum $x_1 + x_2$.</p>');
    },
  );
});
