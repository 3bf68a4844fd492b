import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { formerSlugs, slugOfAddress } from '../../src/records/front-matter.js';
import { buildCategory } from '../helpers/build-category.js';

/** A category file with this front matter, built as plan builds it. */
function build(frontMatter: string, passThrough: boolean, lang?: string) {
  const config = resolveConfig({ resources: { category: { passThrough } } }, { projectDir: '/p', env: {} });
  return buildCategory(config, frontMatter, { lang });
}

describe('front matter history (aliases, redirect_from)', () => {
  it('takes the last segment of an old address as its slug', () => {
    expect(
      [
        '/posts/old-slug/',
        'old-slug',
        '/2019/01/old-slug.html',
        'https://example.com/old-slug/index.html?x=1#top',
      ].map(slugOfAddress),
    ).toEqual(['old-slug', 'old-slug', 'old-slug', 'old-slug']);
    expect(slugOfAddress('/caf%C3%A9/')).toBe('café');
    expect(['/', '', '/a/../'].map(slugOfAddress)).toEqual([undefined, undefined, undefined]);
  });

  it('reads both keys, one address or a list, and says when a value is no list of addresses', () => {
    const lines = { aliases: 3, redirect_from: 5 };
    expect(formerSlugs({ aliases: '/posts/a/', redirect_from: ['/b.html', 'a'] }, lines)).toEqual({
      former: { slugs: ['a', 'b'], key: 'aliases', line: 3 },
      problems: [],
    });
    expect(formerSlugs({ redirect_from: [5] }, lines)).toEqual({
      problems: [
        {
          key: 'redirect_from',
          message:
            "`redirect_from` must be a list of this file's old addresses or slugs, e.g. redirect_from: " +
            '[/posts/old-slug/], got a list; not used to find the record it was renamed from',
        },
      ],
    });
  });

  it('are read without an unsent-key warning, and still sent when passThrough says so', async () => {
    const read = await build('aliases: [/sports/]\ntags: [x]', false);
    expect(read.record?.formerSlugs).toEqual({ slugs: ['sports'], key: 'aliases', line: 3 });
    expect(read.record?.values).not.toHaveProperty('aliases');
    expect(read.problems.map((p) => p.message)).toEqual([
      'front matter `tags` is not sent to the CMS: list it in resources.category.passThrough in sync.config.ts ' +
        'to send it',
    ]);
    const sent = await build('redirect_from: /sports/', true);
    expect(sent.record?.values.redirect_from).toBe('/sports/');
    expect(sent.record?.formerSlugs?.slugs).toEqual(['sports']);
    expect(sent.problems).toEqual([]);
  });

  it("name a translation's own old record, as its file name does", async () => {
    const fr = await build('aliases: [/fr/sports/, /fr/jeux-fr/]', false, 'fr');
    expect(fr.record?.formerSlugs?.slugs).toEqual(['sports-fr', 'jeux-fr']);
  });
});
