import { describe, expect, it } from 'vitest';
import { formatSyncLine, syncLineJson, type SyncLine } from '../../src/watch/sync-line.js';

function line(over: Partial<SyncLine>): SyncLine {
  return {
    at: new Date(2026, 10, 22, 12, 4, 5),
    trigger: 'change',
    files: ['articles/budget.md'],
    changes: [],
    uploads: [],
    documents: 1,
    rendered: 1,
    writes: 0,
    ms: 84.2,
    errorFiles: [],
    problems: [],
    ...over,
  };
}

describe('the line printed per sync', () => {
  it('names the saved file, what happened to its record, the writes and the time', () => {
    expect(
      formatSyncLine(
        line({
          changes: [{ action: 'update', symbol: '~', key: 'article/budget', file: 'articles/budget.md' }],
          writes: 1,
        }),
      ),
    ).toBe('12:04:05 articles/budget.md → ~ article/budget (1 write, 84 ms)');
  });

  it('says so when a save changed nothing', () => {
    expect(formatSyncLine(line({}))).toBe('12:04:05 articles/budget.md → no changes (0 writes, 84 ms)');
  });

  it('points at the positioned message of a broken file', () => {
    expect(formatSyncLine(line({ files: ['articles/x.md'], errorFiles: ['articles/x.md'] }))).toBe(
      '12:04:05 articles/x.md: error (see above)',
    );
  });

  it('keeps what went through when only some files of a batch are broken', () => {
    const text = formatSyncLine(
      line({
        files: ['articles/a.md', 'articles/x.md'],
        changes: [{ action: 'create', symbol: '+', key: 'article/a', file: 'articles/a.md' }],
        writes: 1,
        errorFiles: ['articles/x.md'],
      }),
    );
    expect(text).toBe(
      '12:04:05 articles/a.md, articles/x.md → + article/a (1 write, 84 ms); error in articles/x.md (see above)',
    );
  });

  it('says when a run-level failure will be retried, and when the watcher stops', () => {
    expect(formatSyncLine(line({ error: 'The CMS is unreachable', retryInMs: 4_000 }))).toBe(
      '12:04:05 articles/budget.md: error (see above); retrying in 4 s',
    );
    expect(formatSyncLine(line({ trigger: 'retry', files: [], error: 'x', fatal: true }))).toBe(
      '12:04:05 retry: error (see above); stopped watching',
    );
  });

  it('summarises a large first sync in counts', () => {
    const changes = ['a', 'b', 'c', 'd', 'e'].map((s) => ({
      action: 'create',
      symbol: '+',
      key: `article/${s}`,
      file: `articles/${s}.md`,
    }));
    expect(
      formatSyncLine(line({ trigger: 'start', files: [], changes, uploads: ['images/map.png'], writes: 6 })),
    ).toBe('12:04:05 first sync → 1 uploaded, 5 created (6 writes, 84 ms)');
  });

  it('with --json is one JSON object on one line', () => {
    const json = syncLineJson(line({ writes: 1 }));
    expect(json).not.toContain('\n');
    expect(JSON.parse(json)).toMatchObject({
      at: new Date(2026, 10, 22, 12, 4, 5).toISOString(),
      files: ['articles/budget.md'],
      writes: 1,
    });
  });
});
