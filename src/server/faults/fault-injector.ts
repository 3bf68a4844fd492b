import { randomInt } from 'node:crypto';

/** mulberry32: a tiny seeded PRNG, so `--seed` makes `--fail` / `--drop` runs reproducible. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Decides, per request, whether to inject a failure. A draw is made only for a switch that is
 * on, so a given seed gives the same sequence whatever other switches are set.
 */
export class FaultInjector {
  readonly #failRate: number;
  readonly #dropRate: number;
  readonly #random: () => number;

  constructor(options: { failRate?: number; dropRate?: number; seed?: number }) {
    this.#failRate = options.failRate ?? 0;
    this.#dropRate = options.dropRate ?? 0;
    this.#random = mulberry32(options.seed ?? randomInt(2 ** 31));
  }

  /** `--fail`: answer 500 before anything is applied. */
  shouldFail(): boolean {
    return this.#failRate > 0 && this.#random() < this.#failRate;
  }

  /** `--drop`: the write is applied and durable, then the connection is cut without an answer. */
  shouldDrop(): boolean {
    return this.#dropRate > 0 && this.#random() < this.#dropRate;
  }
}
