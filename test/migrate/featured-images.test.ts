import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from './helpers.js';
import { projectWithSite } from './hugo-and-jekyll-helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString(
  'latin1',
);

let project: Awaited<ReturnType<typeof projectWithSite>> | undefined;
/** Every folder a test made: a test may import more than once. */
const dirs: string[] = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The front matter of a written file, as its lines. */
async function frontMatter(file: string): Promise<string> {
  const text = await project!.read(file);
  return text.slice(4, text.indexOf('\n---\n', 4) + 1);
}

/** A post's front matter with these lines, and a line of text. */
const post = (...lines: string[]) => `---\ntitle: T\ndate: 2024-01-01\n${lines.join('\n')}\n---\nText.\n`;

describe('import hugo: the featured image of each theme', () => {
  it('PaperMod `cover`: in the bundle, from static/, a URL, the archetype left unfilled, hidden, missing', async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\ntheme = "PaperMod"\n',
      'static/images/banner.png': PNG,
      'content/posts/trip/index.md': post(
        'cover:',
        '  image: photo.png',
        '  alt: The train at dawn',
        '  caption: "Photo by [Ann](https://ann.example)"',
        '  relative: true',
      ),
      'content/posts/trip/photo.png': PNG,
      'content/posts/static.md': post('cover:', '  image: /images/banner.png', '  alt: Banner'),
      'content/posts/remote.md': post('cover:', '  image: https://cdn.example/pic.jpg'),
      'content/posts/unfilled.md': post(
        'cover:',
        '  image: "<image path/url>"',
        '  alt: "<alt text>"',
        '  caption: "<text>"',
        '  relative: false',
        '  hidden: true',
      ),
      'content/posts/hidden.md': post('cover:', '  image: /images/banner.png', '  hidden: true'),
      'content/posts/missing.md': post('tags: [x]', 'cover:', '  image: gone.png'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    expect(await frontMatter('content/articles/trip.md')).toContain(
      'featured_image: ../media/posts/trip/photo.png\nfeatured_image_alt: The train at dawn\n' +
        "featured_image_caption: 'Photo by [Ann](https://ann.example)'\n",
    );
    expect(await project.read('content/media/posts/trip/photo.png')).toBe(PNG);
    expect(await frontMatter('content/articles/static.md')).toContain(
      'featured_image: ../media/images/banner.png\nfeatured_image_alt: Banner\n',
    );
    expect(await frontMatter('content/articles/remote.md')).toContain(
      "featured_image: 'https://cdn.example/pic.jpg'\n",
    );
    expect(await frontMatter('content/articles/unfilled.md')).not.toContain('featured_image');
    expect(await frontMatter('content/articles/hidden.md')).toContain(
      'featured_image: ../media/images/banner.png\n',
    );
    expect(await frontMatter('content/articles/missing.md')).not.toContain('featured_image');
    expect(run.stdout).toContain(
      'Warning: h/content/posts/missing.md:5: featured image `gone.png` (`cover`) is not in the site (looked in ' +
        'h/content/posts/gone.png, h/static/gone.png, h/assets/gone.png); left out\n',
    );
    expect(run.stdout).toContain(
      "Warning: featured images the old site hid (PaperMod's `cover.hidden`, Hugo Blox's `preview_only`) are " +
        'imported all the same, since its social cards showed them; remove `featured_image` where the new site ' +
        'should not show one (1 file): h/content/posts/hidden.md:4\n',
    );
    expect(run.stdout).not.toContain('is not imported');
  });

  it("Ananke, Clarity, LoveIt, Stack, Hugo Blox and Hugo's own `images`; keys in any case", async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'static/img/a.png': PNG,
      'assets/media/blox.png': PNG,
      'content/posts/ananke.md': post('featured_image: /img/a.png'),
      'content/posts/clarity.md': post(
        'featureImage: /img/a.png',
        'featureImageAlt: Alt words',
        'featureImageCap: A caption',
        'thumbnail: /img/a.png',
      ),
      'content/posts/loveit.md': post('featuredImage: https://h.example/img/a.png'),
      'content/posts/stack/index.md': post('image: cover.png'),
      'content/posts/stack/cover.png': PNG,
      'content/posts/blox/index.md': post(
        'image:',
        '  caption: "Image credit: Unsplash"',
        '  focal_point: Smart',
      ),
      'content/posts/blox/featured.png': PNG,
      'content/posts/blox-media.md': post('image:', '  filename: blox.png', '  preview_only: false'),
      'content/posts/bare/index.md': post(),
      'content/posts/bare/featured.jpg': PNG,
      // Blowfish's and Congo's `feature*`.
      'content/posts/congo/index.md': post(),
      'content/posts/congo/feature-sunset.jpg': PNG,
      'content/posts/congo/other.jpg': PNG,
      'content/posts/social.md': post('images: [/img/a.png, /img/b.png]'),
      'content/posts/caps.md': post('Images:', '  - /img/a.png'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    const image = (file: string) => frontMatter(`content/articles/${file}.md`);
    expect(await image('ananke')).toContain('featured_image: ../media/img/a.png\n');
    expect(await image('clarity')).toContain(
      'featured_image: ../media/img/a.png\nfeatured_image_alt: Alt words\nfeatured_image_caption: A caption\n',
    );
    // The old site's own URL names a file of the site: copied, as in a body.
    expect(await image('loveit')).toContain('featured_image: ../media/img/a.png\n');
    expect(await image('stack')).toContain('featured_image: ../media/posts/stack/cover.png\n');
    expect(await image('blox')).toContain(
      "featured_image: ../media/posts/blox/featured.png\nfeatured_image_caption: 'Image credit: Unsplash'\n",
    );
    expect(await image('blox-media')).toContain('featured_image: ../media/media/blox.png\n');
    expect(await image('bare')).toContain('featured_image: ../media/posts/bare/featured.jpg\n');
    expect(await image('congo')).toContain('featured_image: ../media/posts/congo/feature-sunset.jpg\n');
    expect(await image('social')).toContain('featured_image: ../media/img/a.png\n');
    expect(await image('caps')).toContain('featured_image: ../media/img/a.png\n');
    // Each found once, where the theme looks first: Hugo Blox's `filename` in assets/media/.
    expect((await project.files()).filter((f) => f.startsWith('content/media/'))).toEqual([
      'content/media/img/a.png',
      'content/media/media/blox.png',
      'content/media/posts/bare/featured.jpg',
      'content/media/posts/blox/featured.png',
      'content/media/posts/congo/feature-sunset.jpg',
      'content/media/posts/stack/cover.png',
    ]);
    // Clarity's `thumbnail` is not one of the keys read for Hugo: still reported.
    expect(run.stdout).toContain(
      'Warning: front matter `thumbnail` is not imported (1 file): h/content/posts/clarity.md:7',
    );
    expect(run.stdout.match(/is not imported/g)).toHaveLength(1);
  });

  it("a page keeps its featured image, as a Ghost page does; a post's social card is counted", async () => {
    project = await projectWithSite('hugo');
    await project.site('h', {
      'hugo.toml': 'baseURL = "https://h.example/"\n',
      'static/img/a.png': PNG,
      'content/about.md': '---\ntitle: About\ncover:\n  image: /img/a.png\n  alt: Us\n---\nText.\n',
      'content/posts/both.md': post('cover:', '  image: /img/a.png', 'images: [/img/social.png]'),
    });
    const run = await runInProcess(project.dir, ['import', 'hugo', 'h']);
    expect(run.code).toBe(0);
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About\nfeatured_image: ../media/img/a.png\nfeatured_image_alt: Us\n---\n\nText.\n',
    );
    expect(run.stdout).not.toContain('is not imported');
    expect(await frontMatter('content/articles/both.md')).toContain('featured_image: ../media/img/a.png\n');
    expect(run.stdout).toContain(
      '       1  images a post or page names besides its featured image (social cards, teasers): the CMS keeps one\n',
    );
  });
});

describe('import jekyll: the featured image of each theme', () => {
  it('seo-tag and Chirpy `image`, Minimal Mistakes `header`, `feature_image`, `thumbnail`, `cover`', async () => {
    project = await projectWithSite('jekyll');
    await project.site('j', {
      '_config.yml': 'url: https://j.example\n',
      'assets/img/a.png': PNG,
      'assets/img/posts/demo/preview.png': PNG,
      'images/mm.png': PNG,
      '_posts/2024-01-01-seo.md': post('image: /assets/img/a.png'),
      '_posts/2024-01-02-chirpy.md': post(
        'media_subpath: /assets/img/posts/demo',
        'image:',
        '  path: preview.png',
        '  alt: A preview',
        '  lqip: data:image/webp;base64,UklGRpoAAABXRUJQ',
      ),
      '_posts/2024-01-03-mm-image.md': post(
        'header:',
        '  image: /images/mm.png',
        '  teaser: /assets/img/a.png',
      ),
      '_posts/2024-01-04-mm-overlay.md': post(
        'header:',
        '  overlay_image: /images/mm.png',
        '  overlay_filter: 0.5',
        '  image_description: A hill',
        '  caption: "Photo: [**Unsplash**](https://unsplash.com)"',
      ),
      '_posts/2024-01-05-mm-teaser.md': post('header:', '  teaser: assets/img/a.png'),
      '_posts/2024-01-06-feature.md': post('feature_image: /assets/img/a.png'),
      '_posts/2024-01-07-thumb.md': post('thumbnail: https://cdn.example/t.jpg'),
      '_posts/2024-01-08-cover.md': post('cover: /assets/img/a.png'),
      '_posts/2024-01-09-gone.md': post('image: /assets/img/gone.png'),
      '_posts/2024-01-10-own.md': post('image: https://j.example/assets/img/gone.png'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'j']);
    expect(run.code).toBe(0);
    const image = (file: string) => frontMatter(`content/articles/${file}.md`);
    expect(await image('seo')).toContain('featured_image: ../media/assets/img/a.png\n');
    expect(await image('chirpy')).toContain(
      'featured_image: ../media/assets/img/posts/demo/preview.png\nfeatured_image_alt: A preview\n',
    );
    expect(await image('mm-image')).toContain('featured_image: ../media/images/mm.png\n');
    expect(await image('mm-overlay')).toContain(
      'featured_image: ../media/images/mm.png\nfeatured_image_alt: A hill\n' +
        "featured_image_caption: 'Photo: [**Unsplash**](https://unsplash.com)'\n",
    );
    expect(await image('mm-teaser')).toContain('featured_image: ../media/assets/img/a.png\n');
    expect(await image('feature')).toContain('featured_image: ../media/assets/img/a.png\n');
    expect(await image('thumb')).toContain("featured_image: 'https://cdn.example/t.jpg'\n");
    expect(await image('cover')).toContain('featured_image: ../media/assets/img/a.png\n');
    expect(await image('gone')).not.toContain('featured_image');
    expect(run.stdout).toContain(
      'Warning: j/_posts/2024-01-09-gone.md:4: featured image `/assets/img/gone.png` (`image`) is not in the site ' +
        '(looked in j/assets/img/gone.png); left out\n',
    );
    // The old site's URL of a file the folder lacks: it may still be served, so it stays.
    expect(await image('own')).toContain("featured_image: 'https://j.example/assets/img/gone.png'\n");
    expect(run.stdout).toContain(
      'Warning: j/_posts/2024-01-10-own.md:4: featured image `https://j.example/assets/img/gone.png` (`image`) is not ' +
        'in the site (looked in j/assets/img/gone.png); kept as its URL\n',
    );
    expect(run.stdout).not.toContain('is not imported');
    expect(run.stdout).not.toContain('Skipped:\n       1  images');
  });

  it('Eleventy `image`, a path, `{path, alt}` or `{src, alt}`', async () => {
    project = await projectWithSite('eleventy');
    await project.site('e', {
      'eleventy.config.js': 'export const config = { dir: { input: "src" } };\n',
      'src/img/e.png': PNG,
      'src/posts/one.md': post('image: /img/e.png'),
      'src/posts/two.md': post('image:', '  path: ../img/e.png', '  alt: Two'),
      'src/posts/three.md': post('image:', '  src: /img/e.png', '  alt: Three'),
    });
    const run = await runInProcess(project.dir, ['import', 'jekyll', 'e']);
    expect(run.code).toBe(0);
    expect(await frontMatter('content/articles/one.md')).toContain('featured_image: ../media/img/e.png\n');
    expect(await frontMatter('content/articles/two.md')).toContain(
      'featured_image: ../media/img/e.png\nfeatured_image_alt: Two\n',
    );
    expect(await frontMatter('content/articles/three.md')).toContain(
      'featured_image: ../media/img/e.png\nfeatured_image_alt: Three\n',
    );
    expect(run.stdout).not.toContain('is not imported');
  });
});

/** A WXR export of a post and a page, each with this post meta, and `more` items. */
function wxr(postMeta: string, pageMeta = '', more = ''): string {
  const item = (id: number, type: string, meta: string) =>
    `<item><title>${type} ${id}</title><dc:creator>admin</dc:creator>
<content:encoded><![CDATA[<p>Text.</p>]]></content:encoded><excerpt:encoded><![CDATA[The excerpt.]]></excerpt:encoded>
<wp:post_id>${id}</wp:post_id><wp:post_date_gmt>2015-01-02 03:04:05</wp:post_date_gmt>
<wp:post_name>${type}-${id}</wp:post_name>
<wp:status>publish</wp:status><wp:post_type>${type}</wp:post_type>${meta}</item>`;
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Blog</title><link>https://blog.example.org</link><wp:wxr_version>1.2</wp:wxr_version>
${item(1, 'post', postMeta)}${item(2, 'page', pageMeta)}${more}
</channel></rss>`;
}

const meta = (key: string, value: string) =>
  `<wp:postmeta><wp:meta_key>${key}</wp:meta_key><wp:meta_value><![CDATA[${value}]]></wp:meta_value></wp:postmeta>`;

async function importWordPress(xml: string): Promise<{ post: string; page: string; stdout: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-wp-seo-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'export.xml'), xml);
  const run = await runInProcess(dir, ['import', 'wordpress', 'export.xml']);
  expect(run.code).toBe(0);
  const read = (file: string) => readFile(path.join(dir, 'content', file), 'utf8');
  return { post: await read('articles/post-1.md'), page: await read('pages/page-2.md'), stdout: run.stdout };
}

describe('import wordpress: the SEO plugins’ meta description, a page’s featured image', () => {
  it("Yoast SEO's, else Rank Math's, becomes `description`; the excerpt stays as it was", async () => {
    const yoast = await importWordPress(
      wxr(
        meta('_yoast_wpseo_metadesc', 'What search engines showed.') +
          meta('rank_math_description', 'Not this one.'),
        meta('rank_math_description', 'About the blog &amp; us.'),
      ),
    );
    expect(yoast.post).toContain('excerpt: The excerpt.\ndescription: What search engines showed.\n');
    expect(yoast.page).toContain('description: About the blog & us.\n');
    const none = await importWordPress(wxr(meta('_yoast_wpseo_metadesc', '  ')));
    expect(none.post).not.toContain('description');
  });

  it('a page keeps its featured image (`_thumbnail_id`) as a post does', async () => {
    const attachment =
      '<item><title>hero</title><wp:post_id>3</wp:post_id><wp:post_type>attachment</wp:post_type>' +
      '<wp:status>inherit</wp:status><wp:attachment_url>https://blog.example.org/wp-content/uploads/hero.jpg' +
      '</wp:attachment_url>' +
      meta('_wp_attachment_image_alt', 'Our office') +
      '</item>';
    const run = await importWordPress(
      wxr(meta('_thumbnail_id', '3'), meta('_thumbnail_id', '3'), attachment),
    );
    for (const file of [run.post, run.page])
      expect(file).toContain(
        "featured_image: 'https://blog.example.org/wp-content/uploads/hero.jpg'\nfeatured_image_alt: Our office\n",
      );
  });

  it("one made of the plugin's variables, which only WordPress fills, is left out and reported", async () => {
    const run = await importWordPress(wxr(meta('_yoast_wpseo_metadesc', '%%title%% %%sep%% %%sitename%%')));
    expect(run.post).not.toContain('description');
    expect(run.stdout).toContain(
      'Warning: post 1 "post 1": its SEO description (`_yoast_wpseo_metadesc`) uses the plugin\'s variables; left out',
    );
  });
});
