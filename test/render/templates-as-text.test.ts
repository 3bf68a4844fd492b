import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { expandTemplates, templatesAsText } from '../../src/render/templates/expand-templates.js';

/** What a sync publishes of an imported body: its templates expanded (auto), then rendered. */
function published(markdown: string): { html: string; problems: string[] } {
  const expanded = expandTemplates(markdown, { file: 'f.md' });
  return {
    html: renderMarkdown(expanded.text, { defaultSize: 'medium' }).html,
    problems: expanded.problems.map((p) => p.message),
  };
}

describe('templatesAsText: syntax the old site showed as text is shown by sync too', () => {
  it('Liquid (text on a Hugo site): outside code by a character reference; inside code left as it is', () => {
    const source = [
      'I prefix links with {{ site.baseurl }} and write {% raw %} alone, or {% if x %}y{% endif %}.',
      '',
      '<div>{{ page.title }}</div>',
      '',
      'In code: `{{ .Title }}`, and a Hugo shortcode {{< youtube id >}} stays for sync.',
      '',
      '```',
      '{% for p in site.posts %}',
      '```',
    ].join('\n');
    const text = templatesAsText(source, 'liquid');
    expect(text).toContain('with &#123;&#123; site.baseurl }} and write &#123;% raw %} alone');
    expect(text).toContain('{{< youtube id >}}');
    const { html, problems } = published(text);
    expect(problems).toEqual([]);
    expect(html).toContain(
      '<p>I prefix links with {{ site.baseurl }} and write {% raw %} alone, or {% if x %}y{% endif %}.</p>',
    );
    expect(html).toContain('<div>{{ page.title }}</div>');
    expect(html).toContain('<code>{{ .Title }}</code>');
    expect(html).toContain('<iframe');
    expect(html).toContain('{% for p in site.posts %}');
  });

  it('Hugo (text on a Jekyll site, or anywhere for an export): in prose and in code', () => {
    const source = 'See {{< youtube id >}} and {{% notice %}}hi{{% /notice %}}, in code `{{< x >}}` too.';
    const text = templatesAsText(source, 'hugo');
    expect(text).toBe(
      'See &#123;&#123;< youtube id >}} and &#123;&#123;% notice %}}hi&#123;&#123;% /notice %}}, in code ' +
        '`{{</* x */>}}` too.',
    );
    const { html, problems } = published(text);
    expect(problems).toEqual([]);
    expect(html).toBe(
      '<p>See {{&#x3C; youtube id >}} and {{% notice %}}hi{{% /notice %}}, in code ' +
        '<code>{{&#x3C; x >}}</code> too.</p>',
    );
  });

  it('returns a body without such syntax as the same string', () => {
    const body = 'Plain text with {braces} and `code`.';
    expect(templatesAsText(body, 'both')).toBe(body);
  });
});
