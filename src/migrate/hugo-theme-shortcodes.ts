import {
  escapeText,
  fencedCode,
  ShortcodeProblem,
  type BlockHandler,
  type BuiltinResult,
  type ShortcodeCall,
} from '../render/templates/builtins.js';

/**
 * The boxes of the popular themes (Docsy's `alert`, Relearn's `notice`, Book's `hint`, Hextra's
 * `callout`, LoveIt's `admonition`, and `note`/`tip`/`warning` of many): they all mean a titled
 * aside, which the CMS's Markdown has as a blockquote.
 */
const ADMONITIONS = [
  'notice',
  'alert',
  'hint',
  'callout',
  'admonition',
  'note',
  'tip',
  'info',
  'warning',
  'caution',
  'important',
  'danger',
];

/**
 * Shortcodes of popular Hugo themes whose meaning every theme shares, written as what the CMS's
 * Markdown has for it:
 * - the boxes (`alert`, `notice`, `hint`…): a blockquote headed by their title;
 * - tabs (hugo-book's `tabs`/`tab`, Hextra's `tabs items="A,B"`/`tab`, Relearn's `tabs`/`tab
 *   title=`, Docsy's `tabpane`/`tab header=`): the CMS has no tabs, so each tab becomes its title
 *   in bold, then its content, one after another. Docsy's tabs are code unless `text=true`: each
 *   becomes a fenced block in its `lang`;
 * - `expand` (hugo-book, Relearn): a `<details>` with its title as the summary, as Hugo's own
 *   `details` is written;
 * - `mermaid`: a fenced `mermaid` block, which GitHub and mermaid's own script draw;
 * - `rawhtml` (PaperMod and many personal themes): its HTML, as it is;
 * - `button` with an `href`: a link;
 * - `columns` (hugo-book, its columns apart by `<--->`) and Hextra's `steps`: their content, the
 *   columns one after another.
 */
export const THEME_SHORTCODES: Readonly<Record<string, BlockHandler>> = {
  ...Object.fromEntries(ADMONITIONS.map((name) => [name, (call: ShortcodeCall) => apart(admonition(call))])),
  tabs: (call) =>
    apart(
      tabsOf(
        call,
        call.named.items?.split(',').map((item) => item.trim()),
      ),
    ),
  tabpane: (call) =>
    apart(
      tabsOf(
        call,
        undefined,
        call.named.text === 'true'
          ? undefined
          : { lang: call.named.lang ?? '', fromTitle: call.named.langEqualsHeader === 'true' },
      ),
    ),
  tab,
  expand: (call) => apart(expand(call)),
  mermaid: (call) => ({ block: fencedCode('mermaid', contentOf(call).trim()) }),
  rawhtml: (call) => contentOf(call).trim(),
  button,
  columns: (call) =>
    apart(
      contentOf(call)
        .trim()
        .replace(/^[ \t]*<--->[ \t]*$/gm, ''),
    ),
  steps: (call) => apart(contentOf(call).trim()),
};

/**
 * What these shortcodes become is Markdown blocks (paragraphs, a quote, a list): a shortcode used in
 * the middle of a line gets blank lines around it, or the text beside it would join its first or
 * last paragraph.
 */
function apart(block: string): BuiltinResult {
  return { block, apart: true };
}

/** `{{% notice warning "Title" %}}…{{% /notice %}}` and its kin: `> **Title**` and the content, quoted. */
function admonition(call: ShortcodeCall): string {
  const inner = contentOf(call);
  const { named, args } = call;
  const kind = named.type ?? named.color ?? (call.name === 'callout' ? undefined : args[0]) ?? call.name;
  const title = named.title ?? args[1] ?? kind.charAt(0).toUpperCase() + kind.slice(1);
  const quoted = inner
    .trim()
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
  return `> **${title}**\n>\n${quoted}`;
}

/**
 * hugo-book's `{{< katex >}}TeX{{< /katex >}}`: its TeX, as typed (a `<` shortcode's content is not
 * Markdown), shown as a block with `display=true` (or a bare `display`, in older versions).
 */
function katex(call: ShortcodeCall): { tex: string; display: boolean } {
  if (call.inner === undefined || call.inner.trim() === '')
    throw new ShortcodeProblem(
      'shortcode `katex` holds no TeX here, so it is left as text: write the formula between ' +
        '`{{< katex >}}` and `{{< /katex >}}`',
      'unhandled',
    );
  const display = /^(?:true|display)$/i.test(call.named.display ?? '') || call.args.includes('display');
  return { tex: call.inner.trim(), display };
}

/** Shortcodes that hold TeX (see SiteProfile.mathShortcodes). */
export const MATH_SHORTCODES = { katex };

/** A tab's place in its tabs' content: its title, language and whether it is only a header (Docsy). */
interface TabMark {
  title?: string;
  lang?: string;
  disabled?: boolean;
}

const TAB = /<!--tab:([^>]*?)-->\n\n([\s\S]*?)\n\n<!--\/tab-->/g;

function tab(call: ShortcodeCall): string {
  const { named, args } = call;
  const title = named.title ?? named.name ?? named.header ?? args[0];
  const mark: TabMark = {
    ...(title !== undefined ? { title } : {}),
    ...(named.lang !== undefined ? { lang: named.lang } : {}),
    ...(named.disabled === 'true' ? { disabled: true } : {}),
  };
  // Marked for the tabs around it, which know the titles Hextra gives by order and Docsy's code.
  return `<!--tab:${encodeURIComponent(JSON.stringify(mark))}-->\n\n${(call.inner ?? '').trim()}\n\n<!--/tab-->`;
}

/**
 * The tabs' content, each tab its title in bold and then its content; `code` (Docsy without
 * `text=true`): each tab's content is code in its `lang`, else the tabpane's (or its title's, with
 * `langEqualsHeader=true`).
 */
function tabsOf(
  call: ShortcodeCall,
  items: string[] | undefined,
  code?: { lang: string; fromTitle: boolean },
): string {
  const content = contentOf(call);
  let index = 0;
  const sections: string[] = [];
  for (const [, marked, inner] of content.matchAll(TAB)) {
    const mark = readMark(marked!);
    const at = index++;
    const title = mark.title ?? items?.[at] ?? `Tab ${at + 1}`;
    if (mark.disabled) {
      sections.push(bold(title));
      continue;
    }
    const body =
      code === undefined
        ? inner!.trim()
        : fencedCode(mark.lang ?? (code.fromTitle ? title.toLowerCase() : code.lang), inner!);
    sections.push(`${bold(title)}\n\n${body}`);
  }
  if (sections.length === 0) return content.trim();
  return sections.join('\n\n');
}

function readMark(marked: string): TabMark {
  try {
    return JSON.parse(decodeURIComponent(marked)) as TabMark;
  } catch {
    return {};
  }
}

function expand(call: ShortcodeCall): string {
  const title = call.named.title ?? call.args[0] ?? 'Expand';
  return `<details><summary>${escapeText(title)}</summary>\n\n${contentOf(call).trim()}\n\n</details>`;
}

function button(call: ShortcodeCall): string {
  const href = call.named.href;
  if (href === undefined)
    throw new ShortcodeProblem(
      `shortcode \`button\` without an \`href\` (a \`relref\` to a page) is left as text: write it as a ` +
        'link to the page, or map it under `markdown.shortcodes` in sync.config.ts',
      'unhandled',
    );
  const label = contentOf(call).trim() || href;
  return `[${label.replace(/([[\]])/g, '\\$1')}](<${href.replace(/[<>]/g, encodeURIComponent)}>)`;
}

function contentOf(call: ShortcodeCall): string {
  if (call.inner === undefined)
    throw new ShortcodeProblem(
      `shortcode \`${call.name}\` holds no content here, so it is left as text: map it under ` +
        '`markdown.shortcodes` in sync.config.ts if it means more',
      'unhandled',
    );
  return call.inner;
}

function bold(title: string): string {
  return `**${title.replace(/\*/g, '\\*')}**`;
}
