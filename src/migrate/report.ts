/**
 * What a migration did, so that nothing is lost silently: counts of what was written per
 * folder, and every skip with its reason. Messages about one item name it (`post 12 "Title"`).
 */
export class MigrationReport {
  readonly written = new Map<string, number>();
  /** reason -> count, in the order reasons were first seen. */
  readonly skipped = new Map<string, number>();
  /** Files left alone because they exist (no --force). */
  readonly existing: string[] = [];
  readonly failures: string[] = [];
  readonly warnings: string[] = [];
  /** Unknown shortcodes kept verbatim, by name. */
  readonly keptShortcodes = new Map<string, number>();

  /** Syntax of the old site's renderer written as its equivalent (definition lists, emoji), by kind. */
  readonly converted = new Map<string, number>();
  /** Embeds written into the Markdown (raw HTML or a shortcode), by kind. */
  readonly embeds = new Map<string, number>();
  /**
   * What the conversion left out, by kind: how many times, in how many items, and the first few
   * of them by name (the report shows no more, and 50,000 names would be kept for nothing).
   */
  readonly dropped = new Map<string, { count: number; items: number; names: string[]; last: string }>();
  /** Items written under another slug than the export's, because an earlier item had it. */
  readonly renamed: string[] = [];
  /** Links to the old site's posts and pages that now point at their new paths. */
  rewrittenLinks = 0;
  /** `item: URL` for each link to the old site whose target was not imported (left as it was). */
  readonly oldLinks: string[] = [];
  /** How many links `oldLinks` stands for: a line may count several (`file: and 3 more`). */
  oldLinkCount = 0;

  /** A line of `oldLinks`, standing for `count` links. */
  oldLink(line: string, count = 1): void {
    this.oldLinks.push(line);
    this.oldLinkCount += count;
  }

  convert(kind: string, count = 1): void {
    if (count > 0) this.converted.set(kind, (this.converted.get(kind) ?? 0) + count);
  }

  embed(kind: string): void {
    this.embeds.set(kind, (this.embeds.get(kind) ?? 0) + 1);
  }

  /** Items are converted one after another: an item's drops of one kind come together. */
  drop(kind: string, item: string): void {
    const entry = this.dropped.get(kind) ?? { count: 0, items: 0, names: [], last: '' };
    entry.count++;
    if (entry.items === 0 || entry.last !== item) {
      entry.items++;
      entry.last = item;
      if (entry.names.length < DROPPED_NAMES_SHOWN) entry.names.push(item);
    }
    this.dropped.set(kind, entry);
  }

  wrote(folder: string): void {
    this.written.set(folder, (this.written.get(folder) ?? 0) + 1);
  }

  skip(reason: string, count = 1): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + count);
  }

  shortcode(name: string): void {
    this.keptShortcodes.set(name, (this.keptShortcodes.get(name) ?? 0) + 1);
  }

  /** A warning said once, however many items trigger it. */
  warnOnce(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  format(title: string): string {
    const lines = [title];
    const folders = ['articles', 'pages', 'categories', 'breaking', 'users'];
    for (const folder of folders)
      lines.push(`  ${folder.padEnd(11)}${String(this.written.get(folder) ?? 0).padStart(6)} written`);
    // Only the static-site importers copy files; the others leave media at their URLs.
    const media = this.written.get('media');
    if (media) lines.push(`  ${'media'.padEnd(11)}${String(media).padStart(6)} copied`);
    if (this.skipped.size) {
      lines.push('Skipped:');
      for (const [reason, count] of this.skipped) lines.push(`  ${String(count).padStart(6)}  ${reason}`);
    }
    if (this.existing.length) {
      lines.push(
        `Not overwritten (${this.existing.length} existing file${this.existing.length === 1 ? '' : 's'}; --force ` +
          `overwrites):`,
      );
      lines.push(
        ...capped(
          this.existing.map((file) => `  ${file}`),
          'files',
        ),
      );
    }
    if (this.keptShortcodes.size) {
      const total = [...this.keptShortcodes.values()].reduce((a, b) => a + b, 0);
      const names = [...this.keptShortcodes]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, n]) => `[${name}] x${n}`);
      lines.push(`Kept verbatim: ${total} unknown shortcode${total === 1 ? '' : 's'} (${names.join(', ')})`);
    }
    if (this.converted.size) {
      const kinds = [...this.converted].map(([kind, n]) => `${kind} x${n}`);
      lines.push(`Converted as the old site showed them: ${kinds.join(', ')}`);
    }
    if (this.embeds.size) {
      const total = [...this.embeds.values()].reduce((a, b) => a + b, 0);
      const kinds = [...this.embeds]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([kind, n]) => `${kind} x${n}`);
      lines.push(`Embeds kept: ${total} (${kinds.join(', ')})`);
    }
    if (this.dropped.size) {
      lines.push('Left out (no place for them in Markdown or the CMS):');
      for (const [kind, { count, items, names }] of this.dropped) {
        const shown = names.join(', ') + (items > names.length ? `, and ${items - names.length} more` : '');
        lines.push(`  ${String(count).padStart(6)}  ${kind}: ${shown}`);
      }
    }
    if (this.renamed.length) {
      lines.push(
        `Renamed (${this.renamed.length}; the slug was already taken by an earlier item of the export):`,
      );
      lines.push(
        ...capped(
          this.renamed.map((line) => `  ${line}`),
          'items',
        ),
      );
    }
    if (this.rewrittenLinks || this.oldLinkCount) {
      lines.push(
        `Links to the old site's posts and pages: ${this.rewrittenLinks} rewritten to their new paths` +
          (this.oldLinkCount
            ? `, ${this.oldLinkCount} left as they were (no imported post or page there):`
            : ''),
      );
      lines.push(
        ...capped(
          this.oldLinks.map((line) => `  ${line}`),
          'links',
        ),
      );
    }
    lines.push(
      ...capped(
        this.warnings.map((warning) => `Warning: ${warning}`),
        'warnings',
      ),
    );
    if (this.failures.length) {
      lines.push(`Failed (${this.failures.length}):`);
      for (const failure of this.failures) lines.push(`  ${failure}`);
    }
    return lines.join('\n');
  }
}

const DROPPED_NAMES_SHOWN = 5;

/** A long list (a re-import of 50,000 posts) shows its first lines and says how many more. */
const LIST_LIMIT = 50;

function capped(lines: string[], what: string): string[] {
  if (lines.length <= LIST_LIMIT) return lines;
  return [...lines.slice(0, LIST_LIMIT), `  ... and ${lines.length - LIST_LIMIT} more ${what}`];
}
