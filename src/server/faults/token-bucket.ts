/**
 * Rate limit for `--rps`: a bucket of `rps` tokens (at least 1) refilled continuously at `rps`
 * per second; each API request takes one.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #capacity: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(rps: number, now: () => number = Date.now) {
    this.#rate = rps;
    this.#capacity = Math.max(1, rps);
    this.#now = now;
    this.#tokens = this.#capacity;
    this.#updatedAt = now();
  }

  /** Takes a token, or says how many whole seconds to wait for one (the `Retry-After` value). */
  take(): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const now = this.#now();
    this.#tokens = Math.min(this.#capacity, this.#tokens + ((now - this.#updatedAt) / 1000) * this.#rate);
    this.#updatedAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.#tokens) / this.#rate)) };
  }
}
