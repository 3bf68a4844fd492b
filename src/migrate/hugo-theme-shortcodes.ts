import { ShortcodeProblem, type ShortcodeCall, type ShortcodeHandler } from '../render/templates/builtins.js';

/**
 * Shortcodes of popular Hugo themes whose meaning every theme shares, written as what the CMS's
 * Markdown has for it (the admonitions are in hugo.ts):
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
export const THEME_SHORTCODES: Readonly<Record<string, ShortcodeHandler>> = {
  tabs: (call) =>
    tabsOf(
      call,
      call.named.items?.split(',').map((item) => item.trim()),
    ),
  tabpane: (call) =>
    tabsOf(
      call,
      undefined,
      call.named.text === 'true'
        ? undefined
        : { lang: call.named.lang ?? '', fromTitle: call.named.langEqualsHeader === 'true' },
    ),
  tab,
  expand,
  mermaid: (call) => `\`\`\`mermaid\n${contentOf(call).trim()}\n\`\`\``,
  rawhtml: (call) => contentOf(call).trim(),
  button,
  columns: (call) =>
    contentOf(call)
      .trim()
      .replace(/^[ \t]*<--->[ \t]*$/gm, ''),
  steps: (call) => contentOf(call).trim(),
};

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
        : fenced(mark.lang ?? (code.fromTitle ? title.toLowerCase() : code.lang), inner!);
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
  return `<details><summary>${escapeHtml(title)}</summary>\n\n${contentOf(call).trim()}\n\n</details>`;
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

function fenced(lang: string, inner: string): string {
  const code = inner.replace(/^\n+|\s+$/g, '');
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang.replace(/[`\s]/g, '')}\n${code}\n${fence}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
