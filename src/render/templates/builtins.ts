import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

/** What a shortcode handler is given, built in or from `markdown.shortcodes` in sync.config.ts. */
export interface ShortcodeCall {
  name: string;
  /** Positional arguments, unquoted: `{{< x a "b c" >}}` -> `['a', 'b c']`. */
  args: string[];
  /** Named arguments: `{{< x key="v" >}}`, `{% x key: "v" %}`, `{% x key="v" %}`. */
  named: Record<string, string>;
  /** For a paired form, the content between the tags with its own templates expanded; else undefined. */
  inner: string | undefined;
  /** Where the tag starts in the file. */
  position: { line: number; column: number };
}

/** Returns Markdown or HTML that replaces the tag (and its inner content); throw to report a problem. */
export type ShortcodeHandler = (call: ShortcodeCall) => string;

export interface SiteInfo {
  /**
   * Path prefix of the site (Jekyll `baseurl`, Eleventy `pathPrefix`), e.g. `/blog`. A full URL
   * (Hugo's `baseURL`) is accepted too: its path is the prefix and its origin stands for `url`.
   */
  baseUrl?: string;
  /** Origin of the site (Jekyll `url`), e.g. `https://example.com`. */
  url?: string;
  /** Values for `{{< param key >}}` and `{{ site.key }}`. */
  params?: Record<string, unknown>;
}

export interface ResolvedSite {
  /** `''` or `/blog`: never a trailing slash. */
  basePath: string;
  /** `''` or `https://example.com`: never a trailing slash. */
  origin: string;
  params: Record<string, unknown>;
}

export interface BuiltinContext {
  site: ResolvedSite;
  /** The page's front matter, when known (an import): Hugo's `param` looks there first. */
  page?: Record<string, unknown>;
  /** A page reference (`ref`, `relref`, `link`, `post_url`) -> the path to link to. */
  resolveRef: (ref: PageRef) => string;
}

/** A page reference as written: the tag (`ref`, `relref`, `link`, `post_url`), its target and language. */
export interface PageRef {
  tag: string;
  /** The page's path or name, as written (`/posts/intro.md#part`, `guide`, `2024-01-02-b`). */
  target: string;
  /** Hugo's `lang` argument: the language of the page linked to, else the linking page's. */
  lang?: string;
}

/**
 * A block result is put on lines of its own, as a fenced code block must be. `apart`: set off by a
 * blank line on each side, for Markdown (a paragraph, a list, a quote) that a single line break
 * would join to the text around it.
 */
export type BuiltinResult = string | { block: string; apart?: boolean };

/** A handler cms-sync brings (an importer's), which may give a block as the built-in ones do. */
export type BlockHandler = (call: ShortcodeCall) => BuiltinResult;

export interface Builtin {
  /** `required`: a paired form only (`highlight`); `none`: never paired. */
  inner: 'none' | 'required' | 'optional';
  /** The inner content becomes code, so text left in it is not made autolink-safe. */
  innerIsCode?: boolean;
  render: (call: ShortcodeCall, context: BuiltinContext) => BuiltinResult;
}

/**
 * A builtin that cannot do its work. `unhandled` is reported like an unknown shortcode (a warning,
 * an error with --strict), its message as it is, saying that the text is left as written; `error`
 * is always an error. Either way the text is left as written.
 */
export class ShortcodeProblem extends Error {
  constructor(
    message: string,
    readonly kind: 'unhandled' | 'error' = 'error',
  ) {
    super(message);
  }
}

export function resolveSite(site: SiteInfo | undefined): ResolvedSite {
  let basePath = site?.baseUrl ?? '';
  let origin = site?.url ?? '';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(basePath)) {
    const parsed = new URL(basePath);
    if (origin === '') origin = parsed.origin;
    basePath = parsed.pathname;
  }
  return {
    basePath: basePath
      .replace(/\/+$/, '')
      .replace(/^(?=[^/])/, '/')
      .replace(/^\/$/, ''),
    origin: origin.replace(/\/+$/, ''),
    params: site?.params ?? {},
  };
}

/**
 * The path of a page named by `ref`, `relref`, `link` or `post_url`: the target's file name without
 * its extension (or its folder's name for `index.md` / `_index.md`), as `/<slug>/`, plus any
 * `#fragment`. The target's own `slug:` is not known here: the caller may pass a resolver that knows it.
 */
export function refPath(target: string): string {
  const hash = target.indexOf('#');
  const fragment = hash === -1 ? '' : target.slice(hash);
  const segments = (hash === -1 ? target : target.slice(0, hash))
    .split(/[?]/)[0]!
    .split('/')
    .filter((s) => s !== '');
  let last = segments.pop()?.replace(/\.(?:md|markdown|html)$/i, '');
  if (last !== undefined && /^_?index(?:\.[\w-]+)?$/i.test(last)) last = segments.pop();
  if (last === undefined || last === '') {
    if (fragment !== '') return fragment;
    throw new ShortcodeProblem(`\`${target}\` names no page; give the page's file name, e.g. "my-post.md"`);
  }
  return `/${last}/${fragment}`;
}

export function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** ` a="1" b="2"` for the attributes given (`''` included); values always quoted and escaped. */
function attributes(pairs: Array<[string, string | undefined | boolean]>): string {
  let out = '';
  for (const [name, value] of pairs) {
    if (value === undefined || value === false) continue;
    out += value === true ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`;
  }
  return out;
}

const inlineMarkdown = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeStringify, { allowDangerousHtml: true })
  .freeze();

const MARKDOWN_SIGN = /[*_`[\]<>\\~]|&[#\w]+;|:\/\/|www\./;

/** Hugo renders captions and summaries as Markdown; plain text (the usual case) is only escaped. */
function markdownify(text: string): string {
  if (!MARKDOWN_SIGN.test(text)) return escapeText(text);
  const html = String(inlineMarkdown.processSync(text)).trim();
  const paragraph = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return paragraph && !paragraph[1]!.includes('<p>') ? paragraph[1]! : html;
}

function required(call: ShortcodeCall, value: string | undefined, what: string, example: string): string {
  if (value === undefined || value.trim() === '') {
    throw new ShortcodeProblem(`\`${call.name}\` needs ${what}, e.g. ${example}`);
  }
  return value.trim();
}

/** Video and post ids go into URLs: anything but an id is refused rather than escaped into a wrong URL. */
function videoId(call: ShortcodeCall, example: string): string {
  const id = required(call, call.named['id'] ?? call.args[0], 'a video id', example);
  if (!/^[\w-]+$/.test(id))
    throw new ShortcodeProblem(`\`${call.name}\` id \`${id}\` is not a video id; ${example}`);
  return id;
}

/** A fence longer than any run of backticks in the code, so the code cannot end it. */
export function fencedCode(language: string | undefined, inner: string): string {
  const code = inner.replace(/^[ \t]*\r?\n/, '').replace(/\r?\n[ \t]*$/, '');
  const longest = Math.max(0, ...Array.from(code.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const info = (language ?? '').trim().split(/\s+/)[0] ?? '';
  return `${fence}${info}\n${code}\n${fence}`;
}

export function figure(call: ShortcodeCall): BuiltinResult {
  const { named } = call;
  const src = required(
    call,
    named['src'] ?? call.args[0],
    'a `src`',
    '{{< figure src="photo.jpg" alt="…" >}}',
  );
  const title = named['title'];
  // Hugo shows a title as a heading over the caption. A heading cannot go where captions go (a
  // paragraph, by default), so it is the caption's first line, in bold; alone, it is the caption.
  const caption =
    title && named['caption']
      ? `<strong>${escapeText(title)}</strong><br>${markdownify(named['caption'])}`
      : named['caption'] === undefined && title === undefined
        ? undefined
        : markdownify(named['caption'] ?? title ?? '');
  const img = `<img${attributes([
    ['src', src],
    ['alt', named['alt'] ?? ''],
    ['title', title],
  ])}>`;
  const anchor = attributes([
    ['href', named['link']],
    ['target', named['target']],
    ['rel', named['rel']],
  ]);
  const linked = named['link'] ? `<a${anchor}>${img}</a>` : img;
  const parts: string[] = [];
  if (caption) parts.push(caption);
  if (named['attr']) {
    const attr = markdownify(named['attr']);
    parts.push(named['attrlink'] ? `<a${attributes([['href', named['attrlink']]])}>${attr}</a>` : attr);
  }
  const figcaption = parts.length > 0 ? `<figcaption>${parts.join(' ')}</figcaption>` : '';
  return `<figure>${linked}${figcaption}</figure>`;
}

export function youtube(call: ShortcodeCall): BuiltinResult {
  const id = videoId(call, '{{< youtube dQw4w9WgXcQ >}}');
  const query = new URLSearchParams();
  for (const key of ['start', 'end']) {
    const value = call.named[key];
    if (value !== undefined && /^\d+$/.test(value)) query.set(key, value);
  }
  const search = query.size > 0 ? `?${query}` : '';
  const title = call.named['title'] ?? 'YouTube video';
  return iframe(`https://www.youtube.com/embed/${id}${search}`, title);
}

export function vimeo(call: ShortcodeCall): BuiltinResult {
  const id = videoId(call, '{{< vimeo 55073825 >}}');
  const title = call.named['title'] ?? 'Vimeo video';
  return iframe(`https://player.vimeo.com/video/${id}`, title);
}

function iframe(src: string, title: string): string {
  return `<iframe${attributes([
    ['src', src],
    ['title', title],
  ])} allowfullscreen></iframe>`;
}

function gist(call: ShortcodeCall): BuiltinResult {
  const example = '{{< gist user 7896402 >}}';
  const user = required(call, call.named['user'] ?? call.args[0], 'a GitHub user and a gist id', example);
  const id = required(call, call.named['id'] ?? call.args[1], 'a gist id after the user', example);
  if (!/^[\w-]+$/.test(user) || !/^[\w]+$/.test(id)) {
    throw new ShortcodeProblem(
      `\`gist\` takes a GitHub user and a gist id, got \`${user}\` \`${id}\`; ${example}`,
    );
  }
  const file = call.named['file'] ?? call.args[2];
  const query = file ? `?file=${encodeURIComponent(file)}` : '';
  return `<script${attributes([['src', `https://gist.github.com/${user}/${id}.js${query}`]])}></script>`;
}

function post(call: ShortcodeCall): BuiltinResult {
  const example = `{{< ${call.name} user="jane" id="1453110110599868418" >}}`;
  const positional = call.args.length >= 2 ? call.args : [undefined, call.args[0]];
  const user = call.named['user'] ?? positional[0];
  const id = required(call, call.named['id'] ?? positional[1], 'a post `id` (and `user`)', example);
  if (!/^\d+$/.test(id) || (user !== undefined && !/^\w+$/.test(user))) {
    throw new ShortcodeProblem(`\`${call.name}\` takes a user name and a numeric post id; ${example}`);
  }
  const url = `https://x.com/${user ?? 'i'}/status/${id}`;
  const label = user ? `Post by @${user} on X` : 'Post on X';
  const link = `<a${attributes([['href', url]])}>${escapeText(label)}</a>`;
  return `<blockquote class="twitter-tweet"><p>${link}</p></blockquote>`;
}

function highlight(call: ShortcodeCall): BuiltinResult {
  return { block: fencedCode(call.named['lang'] ?? call.args[0], call.inner ?? '') };
}

function details(call: ShortcodeCall): BuiltinResult {
  const { named } = call;
  const open = named['open'] !== undefined && named['open'] !== 'false';
  const summary = markdownify(named['summary'] ?? 'Details');
  const attrs = attributes([
    ['class', named['class']],
    ['name', named['name']],
    ['title', named['title']],
    ['open', open],
  ]);
  // Blank lines around the inner content let Markdown inside it be rendered as Markdown.
  return {
    block: `<details${attrs}><summary>${summary}</summary>\n\n${(call.inner ?? '').trim()}\n\n</details>`,
  };
}

function param(call: ShortcodeCall, context: BuiltinContext): BuiltinResult {
  const key = required(
    call,
    call.named['name'] ?? call.args[0],
    'a parameter name',
    '{{< param description >}}',
  );
  // Hugo's `.Page.Param`: the page's params (its `params` map, then its own keys), then the site's.
  const page = context.page;
  const value =
    (page && (lookUp(page, `params.${key}`) ?? lookUp(page, key))) ?? lookUp(context.site.params, key);
  if (value === undefined || value === null || typeof value === 'object') {
    throw new ShortcodeProblem(
      `\`param\` \`${key}\` has no value: set it under \`markdown.site.params\` in sync.config.ts; ` +
        'it is left as text',
      'unhandled',
    );
  }
  return String(value);
}

/** `a.b.c` in nested params; keys match without regard to case, as Hugo's do. */
export function lookUp(params: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = params;
  for (const segment of dotted.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    const record = value as Record<string, unknown>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === segment.toLowerCase());
    if (key === undefined) return undefined;
    value = record[key];
  }
  return value;
}

function reference(call: ShortcodeCall, context: BuiltinContext): BuiltinResult {
  const example = `{{< ${call.name} "my-post.md" >}}`;
  const target = required(call, call.named['path'] ?? call.args[0], 'the page it links to', example);
  const lang = call.named['lang']?.trim();
  return context.resolveRef({ tag: call.name, target, ...(lang ? { lang } : {}) });
}

/**
 * Hugo's `instagram` (`{{< instagram CxOWiQNP2MO >}}`): the post, which Hugo embeds through
 * Instagram's API, as the blockquote Instagram's own embed code starts from, holding a link to
 * it, as `x` gives a post on X.
 */
function instagram(call: ShortcodeCall): BuiltinResult {
  const example = '{{< instagram CxOWiQNP2MO >}}';
  const id = required(call, call.named['id'] ?? call.args[0], 'a post id', example);
  if (!/^[\w-]+$/.test(id))
    throw new ShortcodeProblem(`\`instagram\` takes a post id, got \`${id}\`; ${example}`);
  const url = `https://www.instagram.com/p/${id}/`;
  const link = `<a${attributes([['href', url]])}>${escapeText('Post on Instagram')}</a>`;
  const quote = attributes([
    ['class', 'instagram-media'],
    ['data-instgrm-permalink', url],
  ]);
  return `<blockquote${quote}><p>${link}</p></blockquote>`;
}

/**
 * Hugo's `qr` (`{{< qr text="https://…" />}}`): a QR code's image, which cms-sync does not draw.
 * What it encodes is shown instead: a link when it is one, else the text.
 */
function qr(call: ShortcodeCall): BuiltinResult {
  const example = '{{< qr text="https://example.org" />}}';
  const text = required(
    call,
    call.named['text'] ?? call.inner?.trim() ?? call.args[0],
    'the `text` it encodes',
    example,
  );
  return /^https?:\/\/\S+$/i.test(text)
    ? `<p><a${attributes([['href', text]])}>${escapeText(text)}</a></p>`
    : `<p>${escapeText(text)}</p>`;
}

/** Hugo's embedded shortcodes. */
export const HUGO_BUILTINS: Readonly<Record<string, Builtin>> = {
  figure: { inner: 'none', render: figure },
  youtube: { inner: 'none', render: youtube },
  vimeo: { inner: 'none', render: vimeo },
  gist: { inner: 'none', render: gist },
  x: { inner: 'none', render: post },
  tweet: { inner: 'none', render: post },
  highlight: { inner: 'required', innerIsCode: true, render: highlight },
  ref: { inner: 'none', render: reference },
  relref: { inner: 'none', render: reference },
  param: { inner: 'none', render: param },
  details: { inner: 'required', render: details },
  instagram: { inner: 'none', render: instagram },
  qr: { inner: 'optional', render: qr },
};

/** Jekyll's and Eleventy's tags with a meaning of their own; `raw` and `comment` are read by the parser. */
export const LIQUID_BUILTINS: Readonly<Record<string, Builtin>> = {
  highlight: { inner: 'required', innerIsCode: true, render: highlight },
  link: { inner: 'none', render: reference },
  post_url: { inner: 'none', render: reference },
  '#': { inner: 'none', render: () => '' },
};
