import { describe, expect, it } from 'vitest';
import { stableJson } from '../../src/stable-json.js';
import { emptyState, serializeState } from '../../src/state/state-file.js';

/** The obvious definition: a key-sorted deep copy through JSON.stringify. */
function reference(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sorted(value), null, 2);
}

describe('the state file', () => {
  it('is a line per entry, sorted by key, each a sorted JSON.stringify, byte for byte', () => {
    const state = emptyState('https://cms.example.com');
    state.records.set('article/zebra', {
      id: 2,
      file: 'content/articles/zebra.md',
      owner: 'created',
      source: { title: 'b', body: 'a' },
      remote: {},
      input: { hash: 'h', media: ['images/a.png', 'images/b.png'], fileSha: 's' },
      marker: '2026-11-22T05:00:00.000Z',
    });
    state.records.set('article/aardvark', {
      id: 1,
      file: 'content/articles/aardvark.md',
      owner: 'adopted',
      source: {},
      remote: { title: 'c' },
      input: { hash: 'h2', media: [] },
    });
    state.media['sha256:ff'] = { id: 9, source: 'content/images/a.png' };
    const nested = { b: [1, 'x', null, { d: true, c: [] }], a: { z: {}, y: 'é "quoted"\n' }, u: undefined };
    expect(stableJson(nested, 2)).toBe(reference(nested));
    expect(stableJson(nested)).toBe(JSON.stringify(JSON.parse(reference(nested))));
    const compact = (value: unknown) => JSON.stringify(JSON.parse(reference(value)));
    const { source: zs, remote: zr, ...zebra } = state.records.get('article/zebra')!;
    const { source: as, remote: ar, ...aardvark } = state.records.get('article/aardvark')!;
    expect(serializeState(state)).toBe(
      [
        compact({ version: 2, lineage: state.lineage, serial: 0, target: 'https://cms.example.com' }),
        `["media","sha256:ff",${compact(state.media['sha256:ff'])}]`,
        `["record","article/aardvark",${compact(aardvark)},${compact({ remote: ar, source: as })}]`,
        `["record","article/zebra",${compact(zebra)},${compact({ remote: zr, source: zs })}]`,
        '',
      ].join('\n'),
    );
    expect(serializeState(state).indexOf('article/aardvark')).toBeLessThan(
      serializeState(state).indexOf('article/zebra'),
    );
  });

  it('gives the same text whatever order keys were added in, and for data already sorted', () => {
    const shapes = (seed: number): unknown => ({
      zeta: [{ b: seed, a: [3, { y: 1, x: null }] }, 'text', [{ d: 1, c: 2 }]],
      alpha: { sorted: { a: 1, b: 2 }, unsorted: { b: 2, a: 1 }, '10': 'ten', '9': 'nine' },
      mid: { deep: { deeper: { z: true, a: false } } },
      skip: undefined,
    });
    const value = shapes(1);
    expect(stableJson(value, 2)).toBe(reference(value));
    // Sorted input (as a state read back from state.json) comes out the same, untouched.
    const sorted = JSON.parse(reference(value)) as unknown;
    expect(stableJson(sorted, 2)).toBe(reference(value));
    expect(stableJson(sorted)).toBe(JSON.stringify(sorted));
    expect(stableJson('plain')).toBe('"plain"');
    expect(stableJson(undefined)).toBe('null');
  });
});
