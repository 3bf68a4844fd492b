import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { syncJsonParts } from '../../src/cli/sync-command.js';
import { writeParts } from '../../src/cli/io.js';
import type { Change, Plan } from '../../src/plan/compute-plan.js';
import { planToJson } from '../../src/plan/format-plan.js';
import type { DesiredRecord } from '../../src/records/build-record.js';
import type { SyncReport } from '../../src/sync/run-sync.js';

const record = {
  key: 'article/a',
  resource: 'article',
  slug: 'a',
  file: 'a.md',
  values: {},
} as DesiredRecord;

/** One change of each kind --json shows differently, with text that JSON has to escape. */
const changes: Change[] = [
  {
    action: 'create',
    key: 'article/a',
    resource: 'article',
    file: 'content/articles/a.md',
    record,
    fields: ['body'],
  },
  {
    action: 'update',
    key: 'article/"b"\n',
    resource: 'article',
    file: 'content/articles/b\u2028.md',
    id: 7,
    record,
    fields: ['title'],
    owner: 'created',
    values: [{ field: 'title', cmsField: 'headline', cms: 'Old', ours: 'New \u0000 title' }],
  },
  {
    action: 'drift',
    key: 'page/about',
    resource: 'page',
    file: 'content/pages/about.md',
    id: 3,
    kind: 'conflict',
    fields: ['title'],
    cmsFields: ['headline'],
  },
  {
    action: 'keep',
    key: 'category/x',
    resource: 'category',
    file: 'content/categories/x.md',
    id: 9,
    reason: 'held',
  },
  { action: 'delete', key: 'article/old', resource: 'article', file: 'content/articles/old.md', id: 4 },
  {
    action: 'unchanged',
    key: 'article/moved',
    resource: 'article',
    file: 'content/articles/moved.md',
    movedFrom: 'article/was',
    id: 5,
  },
];

function report(planChanges: Change[], applied: boolean): SyncReport {
  const plan: Plan = {
    changes: planChanges,
    uploads: [],
    knownMedia: [],
    mediaEdits: [],
    problems: [],
    deletesHeld: 'over --max-deletes',
  };
  return {
    mode: applied ? 'apply' : 'plan',
    target: 'local',
    exitCode: 1,
    problems: [{ file: 'content/articles/c.md', line: 3, column: 1, severity: 'error', message: 'no title' }],
    plan,
    result: applied
      ? { created: 1, updated: 1, deleted: 1, adopted: 0, uploaded: 0, failures: [], warnings: ['w'] }
      : undefined,
    source: { documents: 6, rendered: 2, hashed: 6 },
    stats: {
      requests: 3,
      byAction: { 'article.add': 1 },
      writes: 1,
      retries: 0,
      rateLimited: 0,
      ambiguous: 0,
      bytesSent: 10,
      bytesReceived: 20,
    },
    ...(applied ? { timings: { startedAt: 1, read: 2, planned: 3, applied: 4 } } : {}),
  };
}

/** The document as one JSON.stringify of all of it gives it. */
function whole(r: SyncReport): string {
  const plan = planToJson(r.plan!, r.problems);
  const { mode, target, source, stats, result, timings, exitCode } = r;
  return JSON.stringify(
    result
      ? { mode, target, source, plan, result, stats, timings, exitCode }
      : { mode, target, source, plan, stats },
  );
}

describe('--json', () => {
  it('is the text of one JSON.stringify of the document', () => {
    for (const applied of [true, false])
      for (const some of [changes, [], changes.slice(0, 1)]) {
        const r = report(some, applied);
        expect([...syncJsonParts(r)].join('')).toBe(whole(r));
      }
  });

  it('gives a plan with long lists in parts of about 16 K characters', () => {
    // Every document uses the logo: its users are a list as long as the plan.
    const keys = Array.from({ length: 20_000 }, (_, i) => `article/a-story-${i}`);
    const r = report(
      keys.map((key) => ({ ...changes[0]!, key })),
      true,
    );
    const source = { kind: 'url', url: 'https://example.com/logo.png', identity: 'url:logo' };
    r.plan!.uploads = [
      { source, usedBy: keys, text: { alt: 'Logo' } },
      { source: { ...source, identity: 'url:other' }, usedBy: keys.slice(0, 3) },
    ] as Plan['uploads'];
    const parts = [...syncJsonParts(r)];
    expect(parts.join('')).toBe(whole(r));
    expect(parts.length).toBeGreaterThan(50);
    expect(Math.max(...parts.map((p) => p.length))).toBeLessThan(20 * 1024);
  });

  it('cuts a part longer than a piece, never between the halves of a surrogate pair', async () => {
    // The document's text before its changes holds each upload's users: at 100,000 documents sharing
    // one image, megabytes in one part. Written whole, Node would encode it into one malloc'd buffer.
    const pieces: string[] = [];
    const sink = new Writable({
      decodeStrings: false,
      write: (chunk: string, _encoding, done) => {
        pieces.push(chunk);
        done();
      },
    });
    const parts = ['a'.repeat(32 * 1024 - 1) + '🎉' + 'b'.repeat(70_000), 'é🎉'.repeat(40_000), 'end'];
    await writeParts(sink, parts);
    expect(pieces.join('')).toBe(parts.join(''));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(32 * 1024);
    expect(pieces.length).toBeGreaterThan(6);
    // No piece ends with the first half of a pair, or starts with the second.
    for (const piece of pieces) {
      expect(piece.charCodeAt(piece.length - 1) & 0xfc00).not.toBe(0xd800);
      expect(piece.charCodeAt(0) & 0xfc00).not.toBe(0xdc00);
    }
  });

  it('is written whole through a stream that asks to wait, and never waits for a closed one', async () => {
    const r = report(
      Array.from({ length: 3000 }, (_, i) => ({ ...changes[1]!, key: `article/${i}` })),
      true,
    );
    const slow = new PassThrough({ highWaterMark: 1024 });
    const read: Buffer[] = [];
    // What waits in the stream when a part is written: a writer that does not wait piles up all of it.
    let waiting = 0;
    const write = slow.write.bind(slow) as (chunk: string) => boolean;
    slow.write = ((chunk: string) => {
      waiting = Math.max(waiting, slow.writableLength);
      return write(chunk);
    }) as typeof slow.write;
    const reading = (async () => {
      for await (const chunk of slow) {
        read.push(chunk as Buffer);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await writeParts(slow, syncJsonParts(r));
    slow.end();
    await reading;
    expect(Buffer.concat(read).toString('utf8')).toBe(whole(r));
    expect(whole(r).length).toBeGreaterThan(500_000);
    expect(waiting).toBeLessThan(200_000);

    const closed = new Writable({
      highWaterMark: 16,
      write: (_chunk, _encoding, done) => setImmediate(done),
    });
    const writing = writeParts(closed, syncJsonParts(r));
    closed.destroy();
    await expect(writing).resolves.toBeUndefined();
  });
});
