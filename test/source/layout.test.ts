import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/errors.js';
import { isLanguageTag, languageOfStem, type Languages } from '../../src/source/languages.js';
import { pathIdentity, sortBundles } from '../../src/source/layout.js';
import { isDocumentFailure, parseDocument } from '../../src/source/read-document.js';

const en: Languages = { default: 'en' };
const configured: Languages = { default: 'en', codes: ['es', 'pt-br'] };

describe('languages in file names', () => {
  it('reads a two-letter language, with a region or script, after the last dot', () => {
    expect(languageOfStem('post.es', en)).toEqual({ base: 'post', lang: 'es' });
    expect(languageOfStem('index.pt-BR', en)).toEqual({ base: 'index', lang: 'pt-br' });
    expect(languageOfStem('index.zh-hant', en)).toEqual({ base: 'index', lang: 'zh-hant' });
    expect(languageOfStem('my.post.en', en)).toEqual({ base: 'my.post', lang: 'en' });
  });

  it('does not misread names with dots that are not languages', () => {
    for (const stem of [
      'my.post',
      'notes.v2',
      'app.js',
      'release.notes',
      'v1.0',
      '.es',
      'x.xx',
      'a.new',
      'x.md',
    ])
      expect(languageOfStem(stem, en), stem).toBeUndefined();
  });

  it('with languages.codes, reads only those (and the default)', () => {
    expect(languageOfStem('post.es', configured)).toEqual({ base: 'post', lang: 'es' });
    expect(languageOfStem('post.en', configured)).toEqual({ base: 'post', lang: 'en' });
    expect(languageOfStem('post.PT-BR', configured)).toEqual({ base: 'post', lang: 'pt-br' });
    expect(languageOfStem('notes.it', configured)).toBeUndefined();
  });

  it('knows a language tag when it sees one', () => {
    for (const tag of ['en', 'es', 'pt-BR', 'zh-Hant-TW', 'gsw']) expect(isLanguageTag(tag), tag).toBe(true);
    for (const tag of ['', 'english', 'e', 'en_US', 'en-', '12']) expect(isLanguageTag(tag), tag).toBe(false);
  });
});

describe('what a path says about its record', () => {
  it('takes a page bundle’s slug from its folder, a translation’s language from its name', () => {
    expect(pathIdentity('articles/hello.md', en)).toEqual({ stem: 'hello' });
    expect(pathIdentity('articles/2024/hello.es.md', en)).toEqual({ stem: 'hello', lang: 'es' });
    expect(pathIdentity('articles/my-trip/index.md', en)).toEqual({ stem: 'my-trip', index: 'leaf' });
    expect(pathIdentity('articles/2024/my-trip/index.pt-br.md', en)).toEqual({
      stem: 'my-trip',
      lang: 'pt-br',
      index: 'leaf',
    });
    expect(pathIdentity('articles/my.post.md', en)).toEqual({ stem: 'my.post' });
  });

  it('needs a folder of its own for a bundle: index.md in the resource folder is the document `index`', () => {
    expect(pathIdentity('articles/index.md', en)).toEqual({ stem: 'index' });
    expect(pathIdentity('pages/index.es.md', en)).toEqual({ stem: 'index', lang: 'es' });
  });

  it('sees Hugo list pages', () => {
    expect(pathIdentity('categories/travel/_index.md', en)).toEqual({ stem: 'travel', index: 'list' });
    expect(pathIdentity('articles/_index.md', en)).toEqual({ stem: '_index', index: 'list' });
  });
});

describe('sortBundles', () => {
  it('makes the other Markdown files of a bundle, at any depth, its resources, and keeps list pages apart', () => {
    const sorted = sortBundles(
      [
        'articles/_index.md',
        'articles/loose.md',
        'articles/tech/_index.md',
        'articles/tech/post.md',
        'articles/trip/index.en.md',
        'articles/trip/index.es.md',
        'articles/trip/notes.md',
        'articles/trip/data/day1.md',
        'articles/trip/data/index.md',
        'categories/travel/_index.md',
        'categories/food.md',
      ],
      en,
    );
    expect(sorted.records).toEqual([
      'articles/loose.md',
      'articles/tech/post.md',
      'articles/trip/index.en.md',
      'articles/trip/index.es.md',
      'categories/travel/_index.md',
      'categories/food.md',
    ]);
    expect([...sorted.resources]).toEqual([
      [
        'articles/trip',
        ['articles/trip/notes.md', 'articles/trip/data/day1.md', 'articles/trip/data/index.md'],
      ],
    ]);
    expect(sorted.listPages).toEqual(['articles/_index.md', 'articles/tech/_index.md']);
  });
});

describe('keys of translations', () => {
  const parse = (text: string, stem: string, lang?: string, languages: Languages = en) =>
    parseDocument(Buffer.from(text), {
      file: `content/articles/${stem}/index.md`,
      absPath: `/p/content/articles/${stem}/index.md`,
      resource: 'article',
      stem,
      ...(lang ? { lang } : {}),
      languages,
    });

  it('keeps the plain slug in the default language and adds the language otherwise', () => {
    const english = parse('---\ntitle: Trip\n---\n', 'trip', 'en');
    const spanish = parse('---\ntitle: Viaje\n---\n', 'trip', 'es');
    const unnamed = parse('---\ntitle: Trip\n---\n', 'trip');
    const byKey = parse('---\ntitle: Voyage\nlang: fr\n---\n', 'trip');
    const slugged = parse('---\ntitle: Viaje\nslug: viaje\n---\n', 'trip', 'es');
    const spanishDefault = parse('---\ntitle: Viaje\n---\n', 'trip', 'es', { default: 'es' });
    expect(
      [english, spanish, unnamed, byKey, slugged, spanishDefault].map((d) => 'key' in d && d.key),
    ).toEqual([
      'article/trip',
      'article/trip-es',
      'article/trip',
      'article/trip-fr',
      'article/viaje-es',
      'article/trip',
    ]);
    if (isDocumentFailure(byKey)) throw new Error('parsed');
    expect(byKey.lang).toBe('fr');
    // Read into the key, so not a front matter key left for the records stage to report.
    expect(byKey.frontMatter).toEqual({ title: 'Voyage' });
  });

  it('says at its line what is wrong with `lang`', () => {
    const messages = [
      parse('---\ntitle: T\nlang: 3\n---\n', 'trip'),
      parse('---\ntitle: T\nlang: english\n---\n', 'trip'),
      parse('---\ntitle: T\nlang: fr\n---\n', 'trip', 'es'),
      parse('---\ntitle: T\nlang: it\n---\n', 'trip', undefined, configured),
    ].map((d) => (isDocumentFailure(d) ? d.problems.map(formatProblem) : []));
    expect(messages).toEqual([
      ['content/articles/trip/index.md:3:1: `lang` must be a language tag such as en, es or pt-br, got 3'],
      [
        'content/articles/trip/index.md:3:1: `lang` must be a language tag such as en, es or pt-br, got "english"',
      ],
      [
        'content/articles/trip/index.md:3:1: `lang: fr` disagrees with the file name, which says `es`; make them ' +
          'agree or remove `lang`',
      ],
      [
        'content/articles/trip/index.md:3:1: `lang: it` is not one of the languages in sync.config.ts ' +
          '(languages.codes: en, es, pt-br); add it there or fix the key',
      ],
    ]);
  });
});
