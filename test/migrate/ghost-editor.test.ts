import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, runInProcess } from './helpers.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Imports one Ghost 5 post whose row has `fields` (lexical or mobiledoc, and no html). */
async function importPost(fields: Record<string, unknown>): Promise<{ body: string; stdout: string }> {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-ghost-editor-'));
  const post = {
    id: 'p1',
    title: 'Hike',
    slug: 'hike',
    html: null,
    plaintext: 'Our route.',
    type: 'post',
    status: 'published',
    visibility: 'public',
    created_at: '2024-03-01T10:00:00.000Z',
    ...fields,
  };
  await writeFile(
    path.join(dir, 'ghost.json'),
    JSON.stringify({ db: [{ meta: { version: '5.80.0' }, data: { posts: [post] } }] }),
  );
  const run = await runInProcess(dir, [
    'import',
    'ghost',
    'ghost.json',
    '--ghost-url',
    'https://old.example',
  ]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return {
    body: bodyOf(await readFile(path.join(dir, 'content/articles/hike.md'), 'utf8')),
    stdout: run.stdout,
  };
}

const text = (value: string, format = 0) => ({
  type: 'extended-text',
  text: value,
  format,
  detail: 0,
  mode: 'normal',
});
const paragraph = (...children: unknown[]) => ({ type: 'paragraph', children });
const lexical = (...children: unknown[]) => JSON.stringify({ root: { type: 'root', children } });

describe('import ghost: a post with lexical or mobiledoc and no html is rendered as Ghost showed it', () => {
  it('renders lexical: text formats, links, headings, lists, quotes, code, images, embeds and cards', async () => {
    const { body, stdout } = await importPost({
      lexical: lexical(
        paragraph(
          text('Our route, see the '),
          { type: 'link', url: '__GHOST_URL__/trail/', children: [text('trail map')] },
          text(' with '),
          text('bold', 1),
          text(' and both', 3),
          text(', '),
          text('code', 16),
          text(', '),
          text('gone', 4),
          text(', '),
          text('under', 8),
          text('.'),
        ),
        {
          type: 'image',
          src: '__GHOST_URL__/content/images/summit.jpg',
          alt: 'The summit',
          title: 'Dawn',
          caption: 'Photo by <a href="https://unsplash.com/@x">X</a>',
        },
        { type: 'extended-heading', tag: 'h3', children: [text('Day two')] },
        {
          type: 'list',
          listType: 'bullet',
          tag: 'ul',
          children: [
            { type: 'listitem', children: [text('water')] },
            {
              type: 'listitem',
              children: [
                {
                  type: 'list',
                  listType: 'number',
                  tag: 'ol',
                  start: 1,
                  children: [{ type: 'listitem', children: [text('a litre')] }],
                },
              ],
            },
            { type: 'listitem', children: [text('bread')] },
          ],
        },
        { type: 'extended-quote', children: [text('Leave no trace.')] },
        { type: 'codeblock', code: 'const a = 1 < 2;', language: 'js', caption: '' },
        {
          type: 'embed',
          url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
          embedType: 'video',
          html: '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe>',
          caption: '',
        },
        { type: 'embed', url: 'https://vimeo.com/76979871', embedType: 'video', html: '', caption: '' },
        {
          type: 'bookmark',
          url: 'https://example.org/gear',
          metadata: { title: 'Gear list', description: 'What to pack.' },
          caption: '',
        },
        {
          type: 'html',
          html: '<div class="calendly-inline-widget" data-url="https://calendly.com/acme"></div>',
        },
        { type: 'markdown', markdown: 'From *Markdown*.' },
        { type: 'horizontalrule' },
        { type: 'callout', calloutEmoji: '💡', calloutText: 'Start <strong>early</strong>.' },
        {
          type: 'html',
          html: '<p>Only in the newsletter.</p>',
          visibility: {
            web: { nonMember: false, memberSegment: '' },
            email: { memberSegment: 'status:free,status:-free' },
          },
        },
        { type: 'mystery-card', header: 'A card of a later Ghost' },
        { type: 'fancy-box', children: [text('Text in an unknown element.')] },
      ),
    });
    expect(body).toBe(
      [
        'Our route, see the [trail map](https://old.example/trail/) with **bold _and both_**, `code`, ~~gone~~, <u>under</u>.',
        '',
        '![The summit](https://old.example/content/images/summit.jpg)',
        '',
        '_Photo by [X](https://unsplash.com/@x)_',
        '',
        '### Day two',
        '',
        '- water',
        '  1. a litre',
        '- bread',
        '',
        '> Leave no trace.',
        '',
        '```js',
        'const a = 1 < 2;',
        '```',
        '',
        '<figure class="kg-card kg-embed-card"><iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ"></iframe></figure>',
        '',
        '{{< vimeo 76979871 >}}',
        '',
        '[**Gear list**](https://example.org/gear)',
        '',
        'What to pack.',
        '',
        '<div class="calendly-inline-widget" data-url="https://calendly.com/acme"></div>',
        '',
        'From _Markdown_.',
        '',
        '---',
        '',
        '> 💡 Start **early**.',
        '',
        'A card of a later Ghost',
        '',
        'Text in an unknown element.',
        '',
      ].join('\n'),
    );
    expect(stdout).toContain(
      'Converted as the old site showed them: bodies rendered from lexical (the export has no html) x1\n',
    );
    expect(stdout).toContain('       1  cards shown only in emails: post p1 "Hike"\n');
    expect(stdout).toContain(
      '       1  content of lexical nodes of kinds not known here (their text kept): `mystery-card`: post p1 "Hike"\n',
    );
    expect(stdout).toContain(
      '       1  content of lexical nodes of kinds not known here (their text kept): `fancy-box`: post p1 "Hike"\n',
    );
    expect(stdout).not.toContain('plain text');
  });

  it('renders mobiledoc (Ghost 1 to 4): markups, links, headings, lists, image sections and cards', async () => {
    const { body, stdout } = await importPost({
      mobiledoc: JSON.stringify({
        version: '0.3.1',
        atoms: [['soft-return', '', {}]],
        markups: [['strong'], ['a', ['href', 'https://example.org/map']], ['em']],
        cards: [
          [
            'image',
            { src: 'https://old.example/content/images/lake.jpg', alt: 'The lake', caption: 'At noon' },
          ],
          ['code', { code: 'ls -la', language: 'sh' }],
          ['hr', {}],
        ],
        sections: [
          [1, 'h2', [[0, [], 0, 'The lake']]],
          [
            1,
            'p',
            [
              [0, [], 0, 'See '],
              [0, [1], 1, 'the map'],
              [0, [], 0, ', then '],
              [0, [0, 2], 2, 'go'],
              [1, [], 0, 0],
              [0, [], 0, 'now.'],
            ],
          ],
          [10, 0],
          [3, 'ol', [[[0, [], 0, 'one']], [[0, [], 0, 'two']]]],
          [10, 1],
          [10, 2],
          [2, 'img', 'https://old.example/content/images/old.jpg'],
        ],
      }),
    });
    expect(body).toBe(
      [
        '## The lake',
        '',
        'See [the map](https://example.org/map), then **_go_**\\',
        'now.',
        '',
        '![The lake](https://old.example/content/images/lake.jpg)',
        '',
        '_At noon_',
        '',
        '1. one',
        '2. two',
        '',
        '```sh',
        'ls -la',
        '```',
        '',
        '---',
        '',
        '![](https://old.example/content/images/old.jpg)',
        '',
      ].join('\n'),
    );
    expect(stdout).toContain('bodies rendered from mobiledoc (the export has no html) x1\n');
  });

  it('renders a lexical product card as the HTML one is read: name, rating in stars, description, button', async () => {
    const { body } = await importPost({
      lexical: lexical({
        type: 'product',
        productTitle: '<span>Acme Kettle</span>',
        productDescription: '<p>Boils fast.</p>',
        productRatingEnabled: true,
        productStarRating: 4,
        productButtonEnabled: true,
        productButton: 'Buy it',
        productUrl: 'https://shop.example/kettle',
      }),
    });
    expect(body).toBe(
      [
        '**Acme Kettle**',
        '',
        '★★★★☆ (4/5)',
        '',
        'Boils fast.',
        '',
        '[Buy it](https://shop.example/kettle)',
        '',
      ].join('\n'),
    );
  });

  it('writes a post whose lexical cannot be read from its plain text, and says which', async () => {
    const { body, stdout } = await importPost({ lexical: '{"root": [' });
    expect(body).toBe('Our route.\n');
    expect(stdout).toContain('Warning: post p1 "Hike": its lexical content cannot be read (');
    expect(stdout).toContain('); written from its plain text\n');
  });
});
