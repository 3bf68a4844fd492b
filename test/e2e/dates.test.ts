import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

describe('dates a writer can trust', () => {
  let project: Project | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it(
    'reads dates strictly in the configured zone, dates undated posts by their file name, and skips only the bad ' +
      'file',
    async () => {
      project = await createProject({
        'sync.config.ts': "export default { timezone: 'Europe/Madrid' };\n",
        'content/articles/plain.md': '---\ntitle: Plain\ndate: 2026-07-20\n---\n\nText.\n',
        'content/articles/timed.md': '---\ntitle: Timed\ndate: 2026-07-20T12:00:00Z\n---\n\nText.\n',
        'content/articles/2024-05-01-from-name.md': '---\ntitle: From its name\n---\n\nText.\n',
        'content/articles/undated.md': '---\ntitle: Undated\n---\n\nText.\n',
        'content/articles/impossible.md': '---\ntitle: Impossible\n\ndate: 2026-02-30\n---\n\nText.\n',
        'content/articles/vague.md': '---\ntitle: Vague\ndate: March 5\n---\n\nText.\n',
      });
      const result = await project.run(['apply']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'content/articles/impossible.md:4:1: `date` `2026-02-30` is not a day of the calendar (February 2026 has 28 ' +
          'days)',
      );
      expect(result.stderr).toMatch(
        /content\/articles\/vague\.md:3:1: `date` `March 5` is not a date cms-sync can read/,
      );
      // The summaries count what was left out, so a clean-looking plan never hides skipped files.
      expect(result.stdout).toMatch(/^Plan: 4 to create, .*, 2 files skipped \(errors above\)\.$/m);
      expect(result.stdout).toMatch(/^Applied: 4 created, .*, 2 files skipped \(errors above\) in /m);

      const bySlug = Object.fromEntries((await project.records('article')).map((r) => [r.slug, r]));
      expect(Object.keys(bySlug).sort()).toEqual(['2024-05-01-from-name', 'plain', 'timed', 'undated']);
      expect(bySlug.plain?.created_at).toBe('2026-07-19T22:00:00.000Z');
      expect(bySlug.timed?.created_at).toBe('2026-07-20T12:00:00.000Z');
      expect(bySlug['2024-05-01-from-name']?.created_at).toBe('2024-04-30T22:00:00.000Z');
    },
  );

  it('refuses a typo of a managed key at its line, so a draft never goes live by a slip', async () => {
    project = await createProject({
      'content/articles/slip.md': '---\ntitle: Slip\nDraft: true\n---\n\nNot ready.\n',
      'content/articles/fine.md': '---\ntitle: Fine\ndraft: true\nmood: calm\n---\n\nReady.\n',
    });
    const result = await project.run(['apply']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'content/articles/slip.md:3:1: front matter `Draft` looks like a typo of `draft`, which cms-sync reads: did ' +
        'you mean `draft`?',
    );
    expect(result.stderr).toContain(
      'content/articles/fine.md:4:1: warning: front matter `mood` is not sent to the CMS',
    );
    expect((await project.records('article')).map((r) => [r.slug, r.status])).toEqual([['fine', 0]]);
  });
});
