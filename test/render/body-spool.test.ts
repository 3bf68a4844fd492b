import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openBodySpool } from '../../src/render/body-spool.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-spool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the body spool', () => {
  it('gives back each text and value as held, as often as asked, and leaves no file', async () => {
    const spool = openBodySpool(dir);
    const texts = ['', 'Grüße, 世界 🌍', 'x'.repeat(100_000)];
    const held = texts.map((t) => spool.hold(t));
    const value = { values: { title: 'T', created_at: undefined, n: 1 }, media: [{ kind: 'url', url: 'u' }] };
    const kept = spool.place(value);
    const get = () => spool.valueAt(kept.at, kept.length) as typeof value;
    // More values than stay in memory, so the first is read from disk again.
    for (let i = 0; i < 100; i++) spool.place({ i });
    expect(held.map((h) => h.toString())).toEqual(texts);
    expect(held[1]!.toString()).toBe(texts[1]);
    expect(get()).toEqual(value);
    expect('created_at' in get().values).toBe(true);
    expect(spool.stats).toMatchObject({ texts: 3, values: 101 });
    if (process.platform !== 'win32') expect(await readdir(dir)).toEqual([]);
    spool.close();
    expect(await readdir(dir)).toEqual([]);
    expect(() => held[0]!.toString()).toThrow(/spool is closed/);
  });

  it('says where a value or a held text lies, for a holder that keeps the place itself', () => {
    const spool = openBodySpool(dir);
    const other = openBodySpool(dir);
    const value = { values: { title: 'T' }, input: { hash: 'h', media: [] } };
    const place = spool.place(value);
    const text = spool.hold('<p>Grüße</p>');
    for (let i = 0; i < 100; i++) spool.place({ i });
    expect(spool.valueAt(place.at, place.length)).toEqual(value);
    const where = spool.placeOf(text)!;
    expect(spool.textAt(where.at, where.length)).toBe('<p>Grüße</p>');
    // A text of another spool has no place in this one.
    expect(spool.placeOf(other.hold('x'))).toBeUndefined();
    expect(spool.stats).toMatchObject({ texts: 1, values: 101 });
    other.close();
    spool.close();
  });

  it('counts the bodies in memory at once', () => {
    const spool = openBodySpool(dir);
    spool.borrow();
    spool.borrow();
    spool.giveBack();
    spool.borrow();
    spool.giveBack();
    spool.giveBack();
    expect(spool.stats.heldAtOnce).toBe(2);
    spool.close();
  });
});
