import { afterEach, describe, expect, it } from 'vitest';
import { createProject, png, type Project } from './harness.js';

describe('Hugo shortcodes and Liquid in real posts', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'expands them before rendering, uploads the images they name, and warns at the line of what it ' +
      'cannot',
    async () => {
      project = await createProject({
        'sync.config.ts': [
          'export default {',
          "  markdown: { site: { baseUrl: '/blog' }, shortcodes: { note: ({ inner }) => `<aside>${inner}</aside>` } },",
          '};',
        ].join('\n'),
        'content/images/river.png': png(1),
        'content/articles/hugo.md': [
          '---',
          'title: Hugo post',
          '---',
          '',
          'See https://example.com/a for more.',
          '',
          '{{< figure src="../images/river.png" alt="The river at dawn" caption="High water" >}}',
          '',
          '{{< youtube dQw4w9WgXcQ >}}',
          '',
          '{{< note >}}Mind the gap{{< /note >}}',
          '',
          '{{< mystery thing="x" >}}',
          '',
        ].join('\n'),
        'content/articles/jekyll.md': [
          '---',
          'title: Jekyll post',
          '---',
          '',
          'Read [the archive]({{ site.baseurl }}/archive/) or [this]({{ "/x/" | relative_url }}).',
          '',
          '{% raw %}Keep {{ this }} as written{% endraw %}',
          '',
        ].join('\n'),
      });
      const result = await project.run(['apply']);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/content\/articles\/hugo\.md:13:1: warning: .*mystery/);

      const bySlug = Object.fromEntries((await project.records('article')).map((r) => [r.slug, r]));
      const hugo = String(bySlug.hugo?.body);
      const media = await project.records('media');
      expect(media).toHaveLength(1);
      expect(hugo).toContain(`<dynamic-block data-id="${media[0]!.id}" data-type="media"`);
      expect(hugo).toContain('High water');
      expect(hugo).toContain('youtube');
      expect(hugo).toContain('<aside>Mind the gap</aside>');
      expect(hugo).toContain('<p>{{&#x3C; mystery thing="x" >}}</p>');
      expect(hugo).not.toContain('{{< figure');
      const jekyll = String(bySlug.jekyll?.body);
      expect(jekyll).toContain('href="/blog/archive/"');
      expect(jekyll).toContain('href="/blog/x/"');
      expect(jekyll).toContain('Keep {{ this }} as written');

      const rerun = await project.run(['apply']);
      expect(rerun.code).toBe(0);
      expect(rerun.stdout).toMatch(/0 created, 0 updated/);
    },
  );
});
