import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../src/migrate/html-to-markdown.js';
import { loadMath, renderMarkdown } from '../../src/render/render-markdown.js';
import { createProject, type Project } from '../e2e/harness.js';

beforeAll(() => loadMath());

/** A Markdown body with math, and the HTML cms-sync renders it to with `markdown.math`. */
const MARKDOWN = 'The area is $\\pi r^2$, for $5 a print.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n';
const html = (singleDollar: boolean) =>
  renderMarkdown(MARKDOWN, { defaultSize: 'medium', math: { singleDollar } }).html;

describe('htmlToMarkdown: math as cms-sync renders it', () => {
  it('becomes $…$ and $$…$$ again, which render to the same HTML', () => {
    const math = { singleDollar: true };
    const markdown = htmlToMarkdown(html(true), { faithful: true, math });
    expect(markdown).toBe(
      'The area is $\\pi r^2$, for \\$5 a print.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n',
    );
    expect(renderMarkdown(markdown, { defaultSize: 'medium', math }).html).toBe(html(true));
  });

  it('inline math as $$…$$ when a single dollar is no math (`singleDollar: false`)', () => {
    const math = { singleDollar: false };
    const source = 'The area is $$\\pi r^2$$, for $5 a print.\n';
    const rendered = renderMarkdown(source, { defaultSize: 'medium', math }).html;
    const markdown = htmlToMarkdown(rendered, { faithful: true, math });
    expect(markdown).toBe(source);
  });

  it('without `math`, the same HTML is kept as raw HTML, as before', () => {
    const markdown = htmlToMarkdown(html(true), { faithful: true });
    expect(markdown).toContain('<span class="math math-inline">\\(\\pi r^2\\)</span>');
    expect(markdown).not.toContain('$\\pi');
  });
});

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('pull with `markdown.math`', () => {
  it('writes the math back as TeX between dollars, and the plan after it changes nothing', async () => {
    project = await createProject({ 'sync.config.ts': 'export default { markdown: { math: true } };\n' });
    await project.api({
      resource: 'page',
      action: 'add',
      data: { title: 'Circles', slug: 'circles', content: html(true) },
    });
    const pull = await project.run(['pull']);
    expect(pull.stderr).toBe('');
    expect(pull.code).toBe(0);
    expect(await project.read('content/pages/circles.md')).toBe(
      '---\ntitle: Circles\nstatus: 0\n---\n\n' +
        'The area is $\\pi r^2$, for \\$5 a print.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$\n',
    );
    const plan = await project.run(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(0);
  });
});
