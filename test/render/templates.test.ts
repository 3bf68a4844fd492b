import { describe, expect, it } from 'vitest';
import {
  expandTemplates,
  type ExpandOptions,
  type ShortcodeCall,
} from '../../src/render/templates/expand-templates.js';
import { renderMarkdown } from '../../src/render/render-markdown.js';

const base: ExpandOptions = { file: 'content/articles/post.md', bodyLine: 1 };
const expand = (source: string, options: Partial<ExpandOptions> = {}) =>
  expandTemplates(source, { ...base, ...options });
const text = (source: string, options: Partial<ExpandOptions> = {}): string => {
  const result = expand(source, options);
  expect(result.problems).toEqual([]);
  return result.text;
};
const where = (source: string, options: Partial<ExpandOptions> = {}) =>
  expand(source, options).problems.map((p) => `${p.line}:${p.column} ${p.severity}`);

describe('expandTemplates: fast path', () => {
  it('returns the very same string when a body holds no template syntax', () => {
    const body = 'Plain *Markdown* with {braces} and 100% of {curly} text.\n'.repeat(50);
    const result = expand(body);
    expect(result.text).toBe(body);
    expect(result.problems).toEqual([]);
  });

  it('in the hugo dialect, Liquid-looking text is not even looked at', () => {
    const body = 'Use {{ .Title }} and {% if x %} in templates.\n';
    expect(expand(body, { dialect: 'hugo' })).toEqual({ text: body, problems: [] });
  });
});

describe('Hugo shortcode syntax', () => {
  it('reads positional, named, quoted, raw-string and unquoted arguments', () => {
    const seen: unknown[] = [];
    const shortcodes = {
      probe: (call: { args: string[]; named: Record<string, string> }) => (seen.push(call), 'ok'),
    };
    const out = text('{{< probe a "b c" `raw "x"` key=value k2="v 2" k3=`r` >}}', { shortcodes });
    expect(out).toBe('ok');
    expect(seen[0]).toMatchObject({
      args: ['a', 'b c', 'raw "x"'],
      named: { key: 'value', k2: 'v 2', k3: 'r' },
    });
  });

  it('keeps `>}}` and escaped quotes inside a quoted argument', () => {
    const seen: Array<Record<string, string>> = [];
    const shortcodes = { probe: (call: { named: Record<string, string> }) => (seen.push(call.named), 'ok') };
    expect(text('x {{< probe title="a >}} b \\"quoted\\" c" >}} y', { shortcodes })).toBe('x ok y');
    expect(seen[0]).toEqual({ title: 'a >}} b "quoted" c' });
  });

  it('reads arguments spread over several lines, and `{{<name>}}` without spaces', () => {
    const seen: Array<Record<string, string>> = [];
    const shortcodes = { probe: (call: { named: Record<string, string> }) => (seen.push(call.named), 'ok') };
    expect(text('{{< probe\n  src="a.png"\n  alt="A"\n>}}\n{{<probe>}}', { shortcodes })).toBe('ok\nok');
    expect(seen).toEqual([{ src: 'a.png', alt: 'A' }, {}]);
  });

  it('pairs opening and closing shortcodes, nested ones too, and expands the inner content first', () => {
    const shortcodes = {
      box: (call: ShortcodeCall) => `<div class="${call.named['kind']}">${call.inner}</div>`,
    };
    const out = text('{{< box kind="outer" >}}A{{< box kind="inner" >}}B{{< /box >}}C{{< /box >}}', {
      shortcodes,
    });
    expect(out).toBe('<div class="outer">A<div class="inner">B</div>C</div>');
  });

  it('gives a standalone shortcode no inner content when no closing tag follows', () => {
    const inners: Array<string | undefined> = [];
    const shortcodes = { mark: (call: { inner: string | undefined }) => (inners.push(call.inner), '*') };
    expect(text('{{< mark >}} text {{< mark />}}', { shortcodes })).toBe('* text *');
    expect(inners).toEqual([undefined, undefined]);
  });

  it('{{% %}} paired content reaches the handler as Markdown', () => {
    const shortcodes = { note: (call: ShortcodeCall) => `<aside>\n\n${call.inner?.trim()}\n\n</aside>` };
    expect(text('{{% note %}}\n**bold**\n{{% /note %}}', { shortcodes })).toBe(
      '<aside>\n\n**bold**\n\n</aside>',
    );
  });

  it('publishes a comment-escaped shortcode as the literal shortcode', () => {
    expect(text('{{</* figure src="a.png" */>}} and {{%/* note */%}}')).toBe(
      '{{< figure src="a.png" >}} and {{% note %}}',
    );
  });

  it('expands shortcodes inside code blocks and code spans, as Hugo does; escapes stay literal there', () => {
    const body = '```md\n{{< param site >}}\n{{</* param site */>}}\n```\n\n`{{< param site >}}`\n';
    expect(text(body, { site: { params: { site: 'Hi' } } })).toBe(
      '```md\nHi\n{{< param site >}}\n```\n\n`Hi`\n',
    );
  });
});

describe('Hugo built-in shortcodes', () => {
  it('figure -> <figure> with <img src alt title> and a <figcaption>; width and height ignored without a word', () => {
    const out = text(
      '{{< figure src="/img/a.png" alt="A \\"cat\\"" title="T" caption="Cap & co" width="300" height=200 >}}',
    );
    expect(out).toBe(
      '<figure><img src="/img/a.png" alt="A &quot;cat&quot;" title="T"><figcaption><strong>T</strong><br>Cap &amp; co' +
        '</figcaption></figure>',
    );
  });

  it('figure: a title and a caption are both shown, the title first in bold (Hugo: a heading over it)', () => {
    expect(text('{{< figure src="a.png" title="Sunset <3" caption="Over *the* bay" >}}')).toBe(
      '<figure><img src="a.png" alt="" title="Sunset &lt;3"><figcaption><strong>Sunset &lt;3</strong><br>Over ' +
        '<em>the</em> bay</figcaption></figure>',
    );
  });

  it('figure: a caption in Markdown is rendered; a link wraps the image; no caption means no figcaption', () => {
    const source =
      '{{< figure src="a.png" caption="By *me*, [site](https://x.example)" link="https://y.example" >}}';
    expect(text(source)).toBe(
      '<figure><a href="https://y.example"><img src="a.png" alt=""></a>' +
        '<figcaption>By <em>me</em>, <a href="https://x.example">site</a></figcaption></figure>',
    );
    expect(text('{{< figure src="a.png" alt="A" >}}')).toBe('<figure><img src="a.png" alt="A"></figure>');
  });

  it('instagram: the post as a blockquote with its link; qr: what it encodes, a link when it is one', () => {
    expect(text('{{< instagram CxOWiQNP2MO >}}')).toBe(
      '<blockquote class="instagram-media" data-instgrm-permalink="https://www.instagram.com/p/CxOWiQNP2MO/">' +
        '<p><a href="https://www.instagram.com/p/CxOWiQNP2MO/">Post on Instagram</a></p></blockquote>',
    );
    expect(text('{{< qr text="https://shop.example.com" />}}')).toBe(
      '<p><a href="https://shop.example.com">https://shop.example.com</a></p>',
    );
    expect(text('{{< qr >}}Call 555-0100{{< /qr >}}')).toBe('<p>Call 555-0100</p>');
  });

  it('figure: the title is the caption when there is no caption', () => {
    expect(text('{{< figure src="a.png" title="Sunset" >}}')).toBe(
      '<figure><img src="a.png" alt="" title="Sunset"><figcaption>Sunset</figcaption></figure>',
    );
  });

  it('figure reaches the media pipeline: the image becomes a block, its alt kept', () => {
    const out = text('{{< figure src="https://cdn.example/a.png" alt="Alt" caption="Cap" >}}\n');
    const rendered = renderMarkdown(out, { defaultSize: 'medium' });
    expect(rendered.images.map((i) => [i.src, i.alt])).toEqual([['https://cdn.example/a.png', 'Alt']]);
    expect(rendered.html).toContain('</dynamic-block>\n<p class="caption">Cap</p>');
    expect(rendered.html).not.toContain('%22');
  });

  it('youtube takes the id positionally or as id=', () => {
    const embed =
      '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" title="YouTube video" allowfullscreen></iframe>';
    expect(text('{{< youtube dQw4w9WgXcQ >}}')).toBe(embed);
    expect(text('{{< youtube id="dQw4w9WgXcQ" >}}')).toBe(embed);
    expect(text('{{< youtube id=abc start=30 title="Talk" >}}')).toBe(
      '<iframe src="https://www.youtube.com/embed/abc?start=30" title="Talk" allowfullscreen></iframe>',
    );
  });

  it('vimeo', () => {
    expect(text('{{< vimeo 55073825 >}}')).toBe(
      '<iframe src="https://player.vimeo.com/video/55073825" title="Vimeo video" allowfullscreen></iframe>',
    );
  });

  it('gist -> the gist script embed, with an optional file', () => {
    expect(text('{{< gist spf13 7896402 >}}')).toBe(
      '<script src="https://gist.github.com/spf13/7896402.js"></script>',
    );
    expect(text('{{< gist spf13 7896402 "img.html" >}}')).toBe(
      '<script src="https://gist.github.com/spf13/7896402.js?file=img.html"></script>',
    );
  });

  it('x and tweet -> a blockquote linking to the post', () => {
    const quote =
      '<blockquote class="twitter-tweet"><p>' +
      '<a href="https://x.com/jane/status/123">Post by @jane on X</a></p></blockquote>';
    expect(text('{{< x user="jane" id="123" >}}')).toBe(quote);
    expect(text('{{< tweet user="jane" id="123" >}}')).toBe(quote);
    expect(text('{{< tweet jane 123 >}}')).toBe(quote);
  });

  it('highlight -> a fenced code block on its own lines, longer than any backtick run inside', () => {
    expect(text('{{< highlight go "linenos=table" >}}\nfmt.Println("hi")\n{{< /highlight >}}')).toBe(
      '```go\nfmt.Println("hi")\n```',
    );
    // In the middle of a line: on lines of its own, without the spaces that stood beside it.
    expect(text('Text {{< highlight md >}}a ``` b{{< /highlight >}} after')).toBe(
      'Text\n````md\na ``` b\n````\nafter',
    );
    expect(text('Text\n{{< highlight md >}}x{{< /highlight >}}\n\nafter')).toBe(
      'Text\n```md\nx\n```\n\nafter',
    );
    // Indented on a line of its own, in a list item: the block stays in the item.
    expect(text('- one\n  {{< highlight go >}}\nx := 1\n\ny := 2\n{{< /highlight >}}\n- two')).toBe(
      '- one\n  ```go\n  x := 1\n\n  y := 2\n  ```\n- two',
    );
    // Its content indented with the item, as a Markdown list's code is: not indented twice.
    expect(
      text('1. Step\n   {{< highlight sh >}}\n   npm install\n     --save\n   {{< /highlight >}}\n2. Next'),
    ).toBe('1. Step\n   ```sh\n   npm install\n     --save\n   ```\n2. Next');
    // Its content written from column 0, with deeper lines: every line indented alike, so the
    // code keeps its own indentation.
    expect(
      text('1. Step\n   {{< highlight go >}}\nfunc main() {\n    run()\n}\n   {{< /highlight >}}\n2. Next'),
    ).toBe('1. Step\n   ```go\n   func main() {\n       run()\n   }\n   ```\n2. Next');
    // Indented with the item but for a line that must start at column 0: that line alone moves.
    expect(
      text('1. Step\n   {{< highlight sh >}}\n   cat <<EOF\n   a\nEOF\n   {{< /highlight >}}\n2. Next'),
    ).toBe('1. Step\n   ```sh\n   cat <<EOF\n   a\n   EOF\n   ```\n2. Next');
  });

  it('ref and relref -> /<slug>/ from the file name (index.md: its folder), keeping a #fragment', () => {
    expect(
      text('[a]({{< ref "posts/my-post.md" >}}) [b]({{< relref "/blog/bundle/index.md#part-2" >}})'),
    ).toBe('[a](/my-post/) [b](/bundle/#part-2)');
    expect(text('[c]({{< ref path="other" >}})')).toBe('[c](/other/)');
  });

  it('a resolver from the caller decides where a reference points', () => {
    const resolveRef = ({ target }: { target: string }): string => `/articles/${target.toUpperCase()}`;
    expect(text('{{< relref "x" >}}', { resolveRef })).toBe('/articles/X');
  });

  it('param reads site params, nested and without regard to case', () => {
    const site = { params: { Author: 'Jane', social: { mastodon: '@jane@x.example' } } };
    expect(text('{{< param author >}} / {{< param "social.mastodon" >}}', { site })).toBe(
      'Jane / @jane@x.example',
    );
  });

  it("param looks in the page's front matter first (its params, then its own keys), as Hugo does", () => {
    const site = { params: { version: '1.0', author: 'Site' } };
    const page = { version: '2.3', params: { author: 'Ann' } };
    expect(text('{{< param version >}} by {{< param author >}}', { site, page })).toBe('2.3 by Ann');
    expect(text('{{< param version >}}', { site })).toBe('1.0');
  });

  it('param with no value is a warning naming it, left as written', () => {
    const result = expand('{{< param missing >}}');
    expect(result.text).toBe('{{< param missing >}}');
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining('`param` `missing` has no value'),
      }),
    ]);
  });

  it('details -> <details><summary>, its Markdown content between blank lines', () => {
    expect(text('{{< details summary="More *info*" open=true >}}\n**Hidden**\n{{< /details >}}')).toBe(
      '<details open><summary>More <em>info</em></summary>\n\n**Hidden**\n\n</details>',
    );
  });

  it('a builtin given wrong arguments is an error at its position, and the text stays', () => {
    const result = expand('Intro\n  {{< youtube >}}\n{{< figure alt="x" >}}', { bodyLine: 5 });
    expect(result.text).toBe('Intro\n  {{< youtube >}}\n{{< figure alt="x" >}}');
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.severity} ${p.message}`)).toEqual([
      '6:3 error `youtube` failed: `youtube` needs a video id, e.g. {{< youtube dQw4w9WgXcQ >}}',
      '7:1 error `figure` failed: `figure` needs a `src`, e.g. {{< figure src="photo.jpg" alt="…" >}}',
    ]);
  });
});

describe('Liquid (Jekyll / Eleventy)', () => {
  const site = { baseUrl: '/blog', url: 'https://example.com', params: { title: 'My blog' } };

  it('site.baseurl, site.url and site params', () => {
    expect(text('![a]({{ site.baseurl }}/img/a.png) {{ site.url }} {{ site.title }}', { site })).toBe(
      '![a](/blog/img/a.png) https://example.com My blog',
    );
  });

  it("the page's front matter when given (an import), scalars only; without it, left as text", () => {
    const variables = {
      page: { title: 'Hello', weight: 3, draft: false, tags: ['a'], author: { name: 'Ann' } },
    };
    const source =
      '{{ page.title }} {{ page.weight }} {{ page.draft }} {{ page.author.name | relative_url }}';
    expect(text(source, { variables })).toBe('Hello 3 false /Ann');
    const left = expand('{{ page.tags }} {{ page.author }} {{ page.missing }}', { variables });
    expect(left.text).toBe('{{ page.tags }} {{ page.author }} {{ page.missing }}');
    expect(left.problems.map((p) => p.column)).toEqual([1, 17, 35]);
    expect(expand('{{ page.title }}').text).toBe('{{ page.title }}');
  });

  it('url, relative_url and absolute_url filters', () => {
    const source =
      '{{ "/x/" | url }} {{ "x/" | relative_url }} {{ \'/x/\' | absolute_url }} {{ "https://o.example/" | url }}';
    expect(text(source, { site })).toBe('/blog/x/ /blog/x/ https://example.com/blog/x/ https://o.example/');
  });

  it('takes the path of a full-URL baseUrl (Hugo baseURL) and its origin as the site url', () => {
    expect(text('{{ "/x/" | absolute_url }}', { site: { baseUrl: 'https://example.com/blog/' } })).toBe(
      'https://example.com/blog/x/',
    );
  });

  it('site.baseurl is empty when not configured, as in Jekyll', () => {
    expect(text('![a]({{ site.baseurl }}/a.png)')).toBe('![a](/a.png)');
  });

  it('raw emits its inside untouched; comment is removed', () => {
    const body = 'A {% raw %}{{ page.title }} {% if %}{% endraw %} B{% comment %} {{ x }} {% endcomment %}C';
    expect(text(body)).toBe('A {{ page.title }} {% if %} BC');
  });

  it('highlight -> fenced code; Liquid inside it is expanded, as in Jekyll', () => {
    expect(text('{% highlight ruby linenos %}\nputs "{{ site.url }}"\n{% endhighlight %}\n', { site })).toBe(
      '```ruby\nputs "https://example.com"\n```\n',
    );
  });

  it('whitespace control trims around tags and outputs that are expanded', () => {
    expect(text('A  \n {%- comment %}x{% endcomment -%}  \n B', { site })).toBe('AB');
    expect(text('[{{- site.url -}} ]', { site })).toBe('[https://example.com]');
    expect(text('<p>\n  {%- raw -%}\n  x\n  {%- endraw -%}\n</p>')).toBe('<p>\n  x\n  </p>');
  });

  it('include is a warning naming the file, unless mapped', () => {
    const body = 'Before\n{% include "card.html", image: "a.png" %}\n';
    const result = expand(body);
    expect(result.text).toBe(body);
    expect(result.problems).toEqual([
      {
        file: 'content/articles/post.md',
        line: 2,
        column: 1,
        severity: 'warning',
        message: expect.stringMatching(
          /^`\{% include %\}` of `card.html` is left as text: .*map `include` under `markdown.shortcodes`/,
        ),
      },
    ]);
    const include = (call: ShortcodeCall) => `![](${call.named['image']}) from ${call.args[0]}`;
    expect(text(body, { shortcodes: { include } })).toBe('Before\n![](a.png) from card.html\n');
  });

  it('Eleventy {% image %} is not built in: a warning, and a user handler maps it', () => {
    const body = '{% image "cat.jpg" "A cat" %}';
    expect(where(body)).toEqual(['1:1 warning']);
    const image = (call: { args: string[] }) => `![${call.args[1]}](${call.args[0]})`;
    expect(text(body, { shortcodes: { image } })).toBe('![A cat](cat.jpg)');
  });

  it('link and post_url -> /<slug>/', () => {
    expect(text('[a]({% link _posts/2016-07-26-name.md %}) [b]({% post_url 2010-07-21-other %})')).toBe(
      '[a](/2016-07-26-name/) [b](/2010-07-21-other/)',
    );
  });

  it('an unknown output or filter is a warning, left as written', () => {
    const result = expand('{{ page.title }} and {{ "x" | upcase }}');
    expect(result.text).toBe('{{ page.title }} and {{ "x" | upcase }}');
    expect(result.problems.map((p) => `${p.column} ${p.severity} ${p.message}`)).toEqual([
      expect.stringMatching(
        /^1 warning Liquid output `\{\{ page.title \}\}` is left as text: `page.title` is not/,
      ),
      expect.stringMatching(
        /^22 warning Liquid output `\{\{ "x" \| upcase \}\}` is left as text: the filter `upcase`/,
      ),
    ]);
  });

  it('in auto, Liquid inside Markdown code is left as written with no warning; the liquid dialect expands it', () => {
    const body = '```liquid\n{{ site.url }} {% if x %}\n```\n\nand `{{ site.url }}` and {{ site.url }}\n';
    expect(text(body, { site })).toBe(
      '```liquid\n{{ site.url }} {% if x %}\n```\n\nand `{{ site.url }}` and https://example.com\n',
    );
    const liquid = expand(body, { site, dialect: 'liquid' });
    expect(liquid.text).toBe(
      '```liquid\nhttps://example.com {% if x %}\n```\n\nand `https://example.com` and https://example.com\n',
    );
    expect(liquid.problems.map((p) => `${p.line}:${p.column}`)).toEqual(['2:16']);
  });

  it('in auto, Liquid-looking text inside a Hugo highlight is a code sample, left as written with no warning', () => {
    const body =
      '{{< highlight go-html-template >}}\n<h1>{{ .Title }}</h1>{% if x %}y{% endif %}\n{{< /highlight >}}';
    expect(text(body)).toBe('```go-html-template\n<h1>{{ .Title }}</h1>{% if x %}y{% endif %}\n```');
    expect(where(body, { dialect: 'liquid' })).toEqual([
      '1:1 warning',
      '2:5 warning',
      '2:22 warning',
      '3:1 warning',
    ]);
  });

  it('in the liquid dialect, Hugo syntax is not read as a shortcode', () => {
    expect(expand('{{< figure src="a.png" >}}', { dialect: 'liquid' }).text).toBe(
      '{{< figure src="a.png" >}}',
    );
  });
});

describe('problems: unhandled, unclosed, strict', () => {
  it('an unknown shortcode is a warning naming it, at its position in the file; an error with strict', () => {
    const body = 'Line one\n\nSee {{< quote author="Ann" >}}Words{{< /quote >}}.\n';
    const result = expand(body, { bodyLine: 4 });
    expect(result.text).toBe(body);
    expect(result.problems).toEqual([
      {
        file: 'content/articles/post.md',
        line: 6,
        column: 5,
        severity: 'warning',
        message: expect.stringContaining(
          'shortcode `quote` (`{{< quote author="Ann" >}}`) is neither built in nor mapped',
        ),
      },
    ]);
    expect(result.problems[0]!.message).toContain('map it under `markdown.shortcodes` in sync.config.ts');
    expect(where(body, { bodyLine: 4, strict: true })).toEqual(['6:5 error']);
  });

  it('expands known shortcodes inside an unknown paired one', () => {
    const result = expand('{{< quote >}}{{< param a >}}{{< /quote >}}', { site: { params: { a: 'A' } } });
    expect(result.text).toBe('{{< quote >}}A{{< /quote >}}');
    expect(result.problems).toHaveLength(1);
  });

  it('an unclosed shortcode is an error at the right line:column of the file', () => {
    const body = 'Intro\n\n  {{< figure src="a.png"\n\nMore text\n';
    const result = expand(body, { bodyLine: 10 });
    expect(result.text).toBe(body);
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.severity} ${p.message}`)).toEqual([
      '12:3 error shortcode `figure` is not closed: add `>}}` after its arguments',
    ]);
  });

  it('an unclosed shortcode stops at the next one, which is still expanded', () => {
    const result = expand('{{< figure src="a.png"\n{{< param a >}}', { site: { params: { a: 'A' } } });
    expect(result.text).toBe('{{< figure src="a.png"\nA');
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.severity}`)).toEqual(['1:1 error']);
  });

  it('an unterminated quoted argument is an error at the quote', () => {
    expect(where('x\n{{< figure src="a.png >}}', { bodyLine: 3 })).toEqual(['4:16 error']);
  });

  it('a paired builtin without its closing tag is an error; a closing tag without an opening too', () => {
    expect(expand('{{< highlight go >}}\ncode\n').problems.map((p) => p.message)).toEqual([
      '`{{< highlight >}}` is not closed: add `{{< /highlight >}}` after its content',
    ]);
    expect(where('a\n{{< /details >}}')).toEqual(['2:1 error']);
    expect(where('{% endif %}')).toEqual(['1:1 error']);
  });

  it('unclosed raw, Liquid tag and output are errors', () => {
    expect(expand('x {% raw %} {{ y }}').problems.map((p) => `${p.column} ${p.message}`)).toEqual([
      '3 `{% raw %}` is not closed: add `{% endraw %}`',
      expect.stringMatching(/^13 Liquid output `\{\{ y \}\}` is left as text/),
    ]);
    expect(where('ab {% include x')).toEqual(['1:4 error']);
    expect(where('ab\n{{ site.url')).toEqual(['2:1 error']);
  });

  it('mismatched delimiters are an error', () => {
    expect(expand('{{< figure src="a.png" %}}').problems[0]?.message).toBe(
      'shortcode `figure` opens with `{{<` but closes with `%}}`; use `>}}`',
    );
  });

  it('nesting deeper than the bound is one positioned error and the body is left alone', () => {
    const body = `${'{{< box >}}\n'.repeat(25)}x\n${'{{< /box >}}\n'.repeat(25)}`;
    const result = expand(body, { shortcodes: { box: (c) => c.inner ?? '' }, bodyLine: 2 });
    expect(result.text).toBe(body);
    expect(result.problems.map((p) => `${p.line}:${p.column} ${p.severity}`)).toEqual(['22:1 error']);
    expect(result.problems[0]!.message).toContain('nested more than 20 deep');
  });

  it('many standalone shortcodes in a row are not nesting', () => {
    const body = 'x {{< figure src="a.png" >}} {{< mark >}}\n'.repeat(30);
    const result = expand(body, { shortcodes: { mark: () => '*' } });
    expect(result.problems).toEqual([]);
    expect(result.text).toBe('x <figure><img src="a.png" alt=""></figure> *\n'.repeat(30));
  });

  it('crossing tags: a closing tag pairs with the nearest opening of its name; the other is an orphan', () => {
    const seen: Array<[string, string | undefined]> = [];
    const tag = (call: ShortcodeCall) => (seen.push([call.name, call.inner]), `[${call.name}]`);
    const result = expand('{{< a >}}1{{< b >}}2{{< /a >}}3{{< /b >}}', { shortcodes: { a: tag, b: tag } });
    expect(seen).toEqual([
      ['b', undefined],
      ['a', '1[b]2'],
    ]);
    expect(result.text).toBe('[a]3{{< /b >}}');
    expect(result.problems.map((p) => `${p.column} ${p.severity}`)).toEqual(['32 error']);
  });

  it('a handler that throws is an error naming the handler, and the text stays', () => {
    const result = expand('{{< boom >}}', {
      shortcodes: {
        boom: () => {
          throw new Error('no image given');
        },
      },
    });
    expect(result.text).toBe('{{< boom >}}');
    expect(result.problems[0]!.message).toBe(
      'your `boom` handler (markdown.shortcodes) failed: no image given',
    );
  });

  it('a handler that returns no text (or a Promise) is an error saying so', () => {
    const asyncHandler = (async () => 'x') as unknown as () => string;
    const nothing = (() => undefined) as unknown as () => string;
    const result = expand('{{< a >}} {{< b >}}', { shortcodes: { a: asyncHandler, b: nothing } });
    expect(result.text).toBe('{{< a >}} {{< b >}}');
    expect(result.problems.map((p) => p.message)).toEqual([
      'your `a` handler (markdown.shortcodes) failed: returned a Promise; ' +
        'a handler must return its text at once (no async)',
      'your `b` handler (markdown.shortcodes) failed: returned undefined, not text',
    ]);
  });

  it('a user handler replaces a builtin of the same name and gets the position', () => {
    const positions: unknown[] = [];
    const figure = (c: ShortcodeCall) => (positions.push(c.position), `![](${c.named['src']})`);
    expect(text('\n  {{< figure src="a.png" >}}', { shortcodes: { figure }, bodyLine: 3 })).toBe(
      '\n  ![](a.png)',
    );
    expect(positions).toEqual([{ line: 4, column: 3 }]);
  });
});

describe('autolinks never reach into template syntax', () => {
  it('text left as written has its URLs neutralised outside code, so no link is cut from it', () => {
    const body = 'See {{< unknown src="https://site.example/a.png" >}} now\n';
    const result = expand(body);
    expect(result.text).toBe('See {{< unknown src="https<!---->://site.example/a.png" >}} now\n');
    const html = renderMarkdown(result.text, { defaultSize: 'medium' }).html;
    expect(html).toBe('<p>See {{&#x3C; unknown src="https<!---->://site.example/a.png" >}} now</p>');
    const others = expand(
      '{{< x "www.example.com" to=jane@example.com >}} {{ "www.a.example" | upcase }}',
    ).text;
    expect(renderMarkdown(others, { defaultSize: 'medium' }).html).not.toContain('<a');
  });

  it('the same text inside code is left exactly as written', () => {
    const body = '`{{< unknown src="https://site.example/a.png" >}}`\n';
    expect(expand(body).text).toBe(body);
  });

  it('emitted HTML quotes every attribute, so a URL argument stays one attribute value', () => {
    const out = text(
      'Intro {{< figure src="https://site.example/a.png" caption="see www.example.com" >}} end',
    );
    const html = renderMarkdown(out, { defaultSize: 'medium' }).html;
    expect(html).not.toMatch(/%22|%3E|%7D/);
  });
});

describe('scanning is linear', () => {
  it('handles many unclosed openings without re-reading the rest each time', () => {
    const body = '{{< x "'.repeat(20_000) + '{% y '.repeat(20_000) + '{{< x a' + '{{<a'.repeat(50_000);
    const result = expand(body);
    expect(result.text).toBe(body);
    expect(result.problems.length).toBeGreaterThan(0);
  });
});
