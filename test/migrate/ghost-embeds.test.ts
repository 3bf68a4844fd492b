import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWith, runInProcess, type Run } from './helpers.js';

let project: Awaited<ReturnType<typeof projectWith>>;
let run: Run;
beforeAll(async () => {
  project = await projectWith('ghost/embeds.json', 'ghost.json');
  run = await runInProcess(project.dir, [
    'import',
    'ghost',
    'ghost.json',
    '--ghost-url',
    'https://blog.example.com',
  ]);
});
afterAll(() => project.close());

describe('import ghost: embeds, visibility, featured, slugs, links', () => {
  it('reports embeds kept, code injection left out, the renamed draft, links and members-only items', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/ in \d+\.\ds:/, ' in Xs:')).toBe(
      [
        'Imported Ghost export ghost.json into content/ in Xs:',
        '  articles        3 written',
        '  pages           2 written',
        '  categories      2 written',
        '  breaking        0 written',
        '  users           1 written',
        'Embeds kept: 6 (<audio> x1, <iframe> x1, <script> x1, <video> x1, HTML cards x2)',
        'Left out (no place for them in Markdown or the CMS):',
        '       1  per-post code injection (codeinjection_foot): post g1 "Code samples"',
        'Renamed (1; the slug was already taken by an earlier item of the export):',
        '  post g4 "Code samples": articles/code-samples.md is taken; written as articles/code-samples-2.md',
        "Links to the old site's posts and pages: 3 rewritten to their new paths, 1 left as they were (no imported " +
          'post or page there):',
        '  post g1 "Code samples": https://blog.example.com/deleted-post/',
        'Warning: post g2 "Members news" is for paying members only on the old site (visibility: paid); imported as ' +
          'a draft',
        'Warning: page g5 "Team" is for members only on the old site (visibility: members); imported as a draft',
        'Next: `cms-sync plan` shows what apply would send.',
        '',
      ].join('\n'),
    );
  });

  it('keeps gist scripts, embed cards and image alt text; writes featured, the feature image and its alt', async () => {
    expect(await project.read('content/articles/code-samples.md')).toBe(
      [
        '---',
        'title: Code samples',
        'date: 2024-03-01T10:00:00.000Z',
        'featured: true',
        'category: frontend',
        "featured_image: 'https://blog.example.com/content/images/2024/03/code.png'",
        'featured_image_alt: A laptop with code',
        'author: jane',
        '---',
        '',
        'Two gists and a video.',
        '',
        '<script src="https://gist.github.com/jane/0123abcd.js"></script>',
        '',
        'And the second:',
        '',
        '<script src="https://gist.github.com/jane/4567ef.js?file=app.ts"></script>',
        '',
        '<figure class="kg-card kg-embed-card"><iframe width="200" height="113" ' +
          'src="https://www.youtube.com/embed/GhostYT01?feature=oembed" frameborder="0" allow="accelerometer; autoplay" ' +
          'allowfullscreen title="A talk"></iframe></figure>',
        '',
        '<figure class="kg-card kg-embed-card kg-card-hascaption"><blockquote class="twitter-tweet"><p lang="en" ' +
          'dir="ltr">Hello</p>— Ghost (@Ghost) <a href="https://twitter.com/Ghost/status/99?ref_src=twsrc">March 1, ' +
          '2024</a></blockquote>',
        '<script async src="https://platform.twitter.com/widgets.js" charset="utf-8"></script><figcaption>A post on X' +
          '</figcaption></figure>',
        '',
        '![The harbour at noon](https://blog.example.com/content/images/2024/03/harbour.png)',
        '',
        '_The harbour_',
        '',
        "Read [the members' news](/articles/members-news/), [the draft](/articles/code-samples-2/), " +
          '[about us](/pages/about/) and [an old post](https://blog.example.com/deleted-post/).',
        '',
      ].join('\n'),
    );
  });

  it("keeps Ghost's audio and video cards' media, browser controls and thumbnail; paid posts are drafts", async () => {
    expect(await project.read('content/articles/members-news.md')).toBe(
      [
        '---',
        'title: Members news',
        'date: 2024-03-02T10:00:00.000Z',
        'draft: true',
        'author: jane',
        '---',
        '',
        '<figure><audio src="https://blog.example.com/content/media/2024/03/episode.mp3" preload="metadata" controls>' +
          '</audio><figcaption>Episode 1</figcaption></figure>',
        '',
        '<figure><video src="https://blog.example.com/content/media/2024/03/tour.mp4" width="1920" height="1080" ' +
          'playsinline preload="metadata" poster="https://blog.example.com/content/media/2024/03/tour_thumb.jpg" ' +
          'controls></video><figcaption>The tour</figcaption></figure>',
        '',
      ].join('\n'),
    );
  });

  it('writes featured pages, members-only pages as drafts, a duplicate slug as -2, and tag parents', async () => {
    expect(await project.read('content/pages/about.md')).toBe(
      '---\ntitle: About\nfeatured: true\n---\n\nWho we are.\n',
    );
    expect(await project.read('content/pages/team.md')).toBe(
      '---\ntitle: Team\ndraft: true\n---\n\nStaff directory.\n',
    );
    expect(await project.read('content/articles/code-samples-2.md')).toBe(
      '---\ntitle: Code samples\ndate: 2024-03-03T09:00:00.000Z\ndraft: true\n---\n\n' +
        'A draft that took the same slug.\n',
    );
    expect(await project.read('content/categories/frontend.md')).toBe(
      '---\nname: Frontend\nparent: engineering\n---\n',
    );
    expect(await project.read('content/categories/engineering.md')).toBe('---\nname: Engineering\n---\n');
  });
});

describe('import ghost: a Ghost 0.x export', () => {
  it('reads the featured image from `image`, `featured: 1`, and rewrites root-relative links', async () => {
    const old = await projectWith('ghost/ghost-0.x.json', 'ghost.json');
    try {
      const result = await runInProcess(old.dir, [
        'import',
        'ghost',
        'ghost.json',
        '--ghost-url',
        'https://old.test',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(
        "Links to the old site's posts and pages: 1 rewritten to their new paths\n",
      );
      expect(await old.read('content/articles/an-old-post.md')).toBe(
        [
          '---',
          'title: An old post',
          'date: 2015-04-01T10:00:00.000Z',
          'featured: true',
          "featured_image: 'https://old.test/content/images/2015/04/cover.png'",
          'author: old-author',
          '---',
          '',
          'Written in Ghost 0.6. See [the next one](/articles/second-old-post/).',
          '',
        ].join('\n'),
      );
      expect(await old.read('content/articles/second-old-post.md')).not.toContain('featured');
    } finally {
      await old.close();
    }
  });
});
