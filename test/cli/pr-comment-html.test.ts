import { describe, expect, it } from 'vitest';
import { commentMarkdown, type SyncJson } from '../../src/init/ci-report.js';
import { commentHtml } from '../../scripts/screenshot-pr-comment.mjs';

/** A plan as `plan --json --diff` gives it: a long body diff (folded), a short title change, a create. */
function plan(): SyncJson {
  const body = Array.from({ length: 14 }, (_, i) => (i % 2 ? `+<p>New ${i}</p>` : `-<p>Old ${i}</p>`));
  return {
    target: 'local',
    plan: {
      counts: { create: 1, update: 2, unchanged: 3 },
      problems: [],
      changes: [
        {
          action: 'update',
          key: 'article/budget-vote',
          fields: ['body'],
          values: [{ field: 'body', diff: ['@@ -1,7 +1,7 @@', ...body].join('\n') }],
        },
        {
          action: 'update',
          key: 'article/flood-warning',
          fields: ['title'],
          values: [{ field: 'title', diff: '"Flood warnng" → "Flood warning"' }],
        },
        { action: 'create', key: 'article/school-reopens' },
      ],
    },
  } as unknown as SyncJson;
}

describe('the PR comment screenshot: Markdown as GitHub renders it', () => {
  it('keeps the heading, the list of changes, the folded long diff and the coloured diff lines', async () => {
    const markdown = commentMarkdown(plan(), { summaryUrl: 'https://github.com/o/r/actions/runs/1' });
    const html = await commentHtml(markdown);
    // The marker is an HTML comment: hidden, as on GitHub.
    expect(html).not.toContain('cms-sync-plan');
    expect(html).toMatch(/<h3>cms-sync plan \(local\)<\/h3>/);
    expect(html.match(/<li>/g)).toHaveLength(3);
    // The long diff stays inside <details>, closed, its summary naming the record.
    expect(html).toMatch(
      /<details><summary>diff of <code>article\/budget-vote<\/code> \(16 lines\)<\/summary>\s*<pre><code class="language-diff">/,
    );
    expect(html).not.toMatch(/<details open/);
    expect(html).toContain('<span class="diff-hunk">@@ -1,7 +1,7 @@\n</span>');
    expect(html).toContain('<span class="diff-del">-&#x3C;p>Old 0&#x3C;/p>\n</span>');
    expect(html).toContain('<span class="diff-add">+&#x3C;p>New 1&#x3C;/p>\n</span>');
    expect(html).toContain('title: "Flood warnng" → "Flood warning"');
    expect(html).toContain('<a href="https://github.com/o/r/actions/runs/1">job summary</a>');
  });
});
