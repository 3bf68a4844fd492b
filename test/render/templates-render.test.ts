import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/render-markdown.js';
import { expandTemplates, type ShortcodeCall } from '../../src/render/templates/expand-templates.js';

// Bodies as real blogs have them, expanded and then rendered by the pipeline as it is today:
// what a writer meant reaches the HTML, images become media blocks, and nothing is cut by autolinks.
const render = (markdown: string) => renderMarkdown(markdown, { defaultSize: 'medium' });

describe('expanded bodies through the Markdown renderer', () => {
  it('a Hugo post: figure, youtube, highlight, details, ref and an escaped shortcode in code', () => {
    const body = [
      'Intro with a [link]({{< relref "other-post.md" >}}).',
      '',
      '{{< figure src="images/harbour.jpg" alt="The harbour at dawn" caption="Taken from the *north* pier" >}}',
      '',
      '{{< youtube dQw4w9WgXcQ >}}',
      '',
      '{{< highlight go >}}',
      'fmt.Println("{{ not liquid }}")',
      '{{< /highlight >}}',
      '',
      '{{% details summary="Notes" %}}',
      'Some **bold** notes.',
      '{{% /details %}}',
      '',
      '```md',
      '{{</* figure src="x.png" */>}}',
      '```',
      '',
    ].join('\n');
    const expanded = expandTemplates(body, {
      file: 'content/articles/hugo.md',
      bodyLine: 6,
      dialect: 'hugo',
    });
    expect(expanded.problems).toEqual([]);
    const { html, images } = render(expanded.text);
    expect(images.map((i) => [i.src, i.alt, i.kind])).toEqual([
      ['images/harbour.jpg', 'The harbour at dawn', 'html'],
    ]);
    expect(html).toContain('<a href="/other-post/">link</a>');
    expect(html).toContain('<p class="caption">Taken from the <em>north</em> pier</p>');
    expect(html).toContain('<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"');
    expect(html).toContain('<pre><code class="language-go">fmt.Println("{{ not liquid }}")\n</code></pre>');
    expect(html).toContain(
      '<details><summary>Notes</summary>\n<p>Some <strong>bold</strong> notes.</p>\n</details>',
    );
    expect(html).toContain('<code class="language-md">{{&#x3C; figure src="x.png" >}}\n</code>');
    expect(html).not.toContain('{{%');
  });

  it('a Jekyll post: baseurl images, relative_url links, raw, highlight and a mapped include', () => {
    const body = [
      '![Map]({{ site.baseurl }}/assets/map.png "large")',
      '',
      'Read [the guide]({{ "/guide/" | relative_url }}).',
      '',
      '{% include figure.html image="/assets/photo.jpg" caption="A photo" %}',
      '',
      '{% highlight liquid %}',
      '{% raw %}{{ page.title }}{% endraw %}',
      '{% endhighlight %}',
      '',
    ].join('\n');
    const include = (call: ShortcodeCall): string =>
      `<figure><img src="${call.named['image']}" alt=""><figcaption>${call.named['caption']}</figcaption></figure>`;
    const expanded = expandTemplates(body, {
      file: 'content/articles/jekyll.md',
      dialect: 'liquid',
      site: { baseUrl: '/blog' },
      shortcodes: { include },
    });
    expect(expanded.problems).toEqual([]);
    const { html, images } = render(expanded.text);
    expect(images.map((i) => [i.src, i.size])).toEqual([
      ['/blog/assets/map.png', 'large'],
      ['/assets/photo.jpg', 'medium'],
    ]);
    expect(html).toContain('<a href="/blog/guide/">the guide</a>');
    expect(html).toContain('<p class="caption">A photo</p>');
    expect(html).toContain('<pre><code class="language-liquid">{{ page.title }}\n</code></pre>');
  });

  it('an Eleventy image shortcode left unmapped is a warning, and its URL argument is not autolinked', () => {
    const body = 'Look:\n\n{% image "https://cdn.example/cat.jpg", "A cat" %}\n';
    const expanded = expandTemplates(body, { file: 'content/articles/eleventy.md', bodyLine: 4 });
    expect(expanded.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.severity}`)).toEqual([
      'content/articles/eleventy.md:6:1 warning',
    ]);
    const { html } = render(expanded.text);
    expect(html).not.toContain('<a ');
    expect(html).toContain('cdn.example/cat.jpg');
  });
});
