import { describe, expect, it } from 'vitest';
import { oembedMarker, protectEmbeds } from '../../src/migrate/embeds.js';
import { htmlToMarkdown } from '../../src/migrate/html-to-markdown.js';
import { oembed } from '../../src/migrate/oembed.js';
import { OldSiteLinks } from '../../src/migrate/old-links.js';
import { autoEmbed } from '../../src/migrate/wpautop.js';

function convert(html: string) {
  const kept: string[] = [];
  const dropped: string[] = [];
  const embeds = protectEmbeds(html, { kept: (k) => kept.push(k), dropped: (k) => dropped.push(k) });
  return { markdown: embeds.restore(htmlToMarkdown(embeds.html)), kept, dropped };
}

describe('embeds kept through the HTML -> Markdown step', () => {
  it('puts a multi-line embed back inside list items and quotes with their prefixes', () => {
    const { markdown, kept } = convert(
      '<ul><li><video src="a.mp4"><track src="a.vtt"></video></li></ul><blockquote><p>' +
        '<audio src="b.mp3"></audio></p></blockquote><p>Inline <iframe src="https://x.test/e"></iframe> here.</p>',
    );
    expect(markdown).toBe(
      [
        '- <video src="a.mp4">',
        '  <track src="a.vtt">',
        '  </video>',
        '',
        '> <audio src="b.mp3">',
        '> </audio>',
        '',
        'Inline <iframe src="https://x.test/e"></iframe> here.',
        '',
      ].join('\n'),
    );
    expect(kept).toEqual(['<video>', '<audio>', '<iframe>']);
  });

  it('keeps two embeds in a row as two blocks, and a blank line inside one does not end its block', () => {
    const { markdown } = convert(
      '<script src="https://gist.github.com/a/1.js"></script><figure><iframe src="x">' +
        '</iframe>\n\n<figcaption>Cap</figcaption></figure>',
    );
    expect(markdown).toBe(
      '<script src="https://gist.github.com/a/1.js"></script>\n\n<figure><iframe src="x"></iframe>\n' +
        '<figcaption>Cap</figcaption></figure>\n',
    );
  });

  it('counts what the Markdown leaves out, and leaves HTML with no embed untouched', () => {
    expect(convert('<style>p{}</style><form><input name="q"></form>').dropped).toEqual([
      '<style> elements (page CSS)',
      'forms (the fields go; their text stays)',
    ]);
    const plain = '<p>No embeds here.</p>';
    expect(protectEmbeds(plain, { kept: () => {}, dropped: () => {} }).html).toBe(plain);
  });
});

describe('oEmbed URLs', () => {
  it.each([
    ['https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42', '{{< youtube id="dQw4w9WgXcQ" start="42" >}}'],
    ['https://youtu.be/dQw4w9WgXcQ', '{{< youtube dQw4w9WgXcQ >}}'],
    ['https://www.youtube.com/shorts/abc_DEF-1', '{{< youtube abc_DEF-1 >}}'],
    ['https://vimeo.com/channels/staffpicks/123456', '{{< vimeo 123456 >}}'],
    ['https://x.com/jack/status/20', '{{< x user="jack" id="20" >}}'],
  ])('%s -> %s', (url, markdown) => {
    expect(oembed(url)).toMatchObject({ markdown });
  });

  it('gives Spotify and SoundCloud their player iframe, other providers a link, and other sites nothing', () => {
    expect(oembed('https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC')).toMatchObject({
      iframe: expect.stringContaining('src="https://open.spotify.com/embed/track/4uLU6hMCjMI75M1A2tKUQC"'),
    });
    expect(oembed('https://soundcloud.com/artist/song')).toMatchObject({
      iframe: expect.stringContaining('https://w.soundcloud.com/player/?url=https%3A%2F%2Fsoundcloud.com'),
    });
    expect(oembed('https://www.flickr.com/photos/x/1')).toEqual({ kind: 'link', provider: 'flickr.com' });
    expect(oembed('https://example.com/video')).toBeUndefined();
  });

  it('marks a provider URL alone on its line or in its paragraph, not one in <pre> or in text', () => {
    const url = 'https://youtu.be/abc';
    expect(autoEmbed(`Intro\n${url}\nMore ${url}\n<pre>\n${url}\n</pre>`)).toBe(
      `Intro\n\n${oembedMarker(url)}\n\nMore ${url}\n<pre>\n${url}\n</pre>`,
    );
    expect(autoEmbed(`<p> ${url} </p>`)).toBe(`<p>${oembedMarker(url)}</p>`);
  });
});

describe('links to the old site', () => {
  it('match by permalink, ?p=id, percent-encoding and www., keep the #fragment, skip files and the home', () => {
    const links = new OldSiteLinks();
    links.addSite('https://old.example.com');
    links.add('https://old.example.com/2024/03/caf%C3%A9/', 'articles', 'café');
    links.add('?p=12', 'articles', 'café');
    expect(links.rewrite('https://www.old.example.com/2024/03/café#menu')).toEqual({
      to: '/articles/café/#menu',
    });
    expect(links.rewrite('http://old.example.com/?p=12')).toEqual({ to: '/articles/café/' });
    expect(links.rewrite('/2024/03/gone/')).toEqual({ missing: true });
    expect(links.rewrite('https://old.example.com/wp-content/uploads/a.pdf')).toBeUndefined();
    expect(links.rewrite('https://old.example.com/')).toBeUndefined();
    expect(links.rewrite('https://elsewhere.example/2024/03/café/')).toBeUndefined();
  });
});
