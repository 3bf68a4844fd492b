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

/** A long list (a re-import of 50,000 posts) shows its first lines and says how many more. */
const LIST_LIMIT = 50;

function capped(lines: string[], what: string): string[] {
  if (lines.length <= LIST_LIMIT) return lines;
  return [...lines.slice(0, LIST_LIMIT), `  ... and ${lines.length - LIST_LIMIT} more ${what}`];
}
