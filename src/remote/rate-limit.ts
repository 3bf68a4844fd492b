/**
 * One gate per client for every send: a requests-per-second ceiling plus a "nobody sends before
 * T" pause set when the CMS answers 429 with Retry-After.
 *
 * The ceiling is a token bucket of capacity one, i.e. sends are spaced at least 1000/rps ms
 * apart: a burst allowance would let 2×rps through across a one-second window edge.
 *
 * Waiters are served first come, first served by one pump. Deciding at release time (rather than
 * handing out future time slots up front) matters: a pause that arrives while others wait must
 * hold them back too, and slots reserved before it would either be sent too early or be wasted.
 */
export interface ThrottleOptions {
  /** Requests per second; 0 means no ceiling. */
  rps: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class Throttle {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #nextAt = -Infinity;
  #pausedUntil = -Infinity;
  #queue: Waiter[] = [];
  #pumping = false;

  constructor(options: ThrottleOptions) {
    this.#intervalMs = options.rps > 0 ? 1000 / options.rps : 0;
    this.#now = options.now;
    this.#sleep = options.sleep;
  }

  /** Holds every later send until `time` (epoch ms). A pause never gets shorter. */
  pauseUntil(time: number): void {
    if (time > this.#pausedUntil) this.#pausedUntil = time;
  }

  get pausedUntil(): number | undefined {
    return this.#pausedUntil > this.#now() ? this.#pausedUntil : undefined;
  }

  /** Resolves when the caller may send now; call it right before sending. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length === 0 && this.#waitMs() <= 0) {
      this.#take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.#queue = this.#queue.filter((w) => w !== waiter);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      void this.#pump();
    });
  }

  #waitMs(): number {
    return Math.max(this.#nextAt, this.#pausedUntil) - this.#now();
  }

  #take(): void {
    this.#nextAt = this.#now() + this.#intervalMs;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const waitMs = this.#waitMs();
        if (waitMs > 0) {
          // Re-check after waking: a pause may have been set (or extended) meanwhile.
          await this.#sleep(waitMs);
          continue;
        }
        const waiter = this.#queue.shift();
        if (!waiter) break;
        waiter.signal?.removeEventListener('abort', waiter.onAbort);
        this.#take();
        waiter.resolve();
      }
    } catch (error) {
      for (const waiter of this.#queue.splice(0)) waiter.reject(error);
    } finally {
      this.#pumping = false;
    }
  }
}
