/**
 * One gate per client for every send: a requests-per-second ceiling plus a "nobody sends before
 * T" pause set when the CMS answers 429 with Retry-After.
 *
 * The ceiling is a token bucket of capacity one, i.e. sends are spaced at least 1000/rps ms
 * apart: a burst allowance would let 2×rps through across a one-second window edge.
 *
 * The rate adapts (AIMD, as TCP does): every 429 halves it, every success adds a little back, up
 * to the ceiling. A CMS that allows less than `rps` thus sees a 429 now and then, not on every
 * burst; with no ceiling set the first 429 starts from the rate actually observed.
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

/** Lowest rate the adaptation goes down to, requests per second. */
const MIN_RPS = 0.5;
/** Added to the rate per successful request: slow enough that 429s stay rare near the limit. */
const RECOVERY_STEP = 0.02;
/** Window over which the send rate is observed when no ceiling is set. */
const OBSERVE_MS = 2000;

export class Throttle {
  readonly #ceiling: number;
  #rate: number;
  #intervalMs: number;
  #recentSends: number[] = [];
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #nextAt = -Infinity;
  #pausedUntil = -Infinity;
  #queue: Waiter[] = [];
  #pumping = false;

  constructor(options: ThrottleOptions) {
    this.#ceiling = options.rps > 0 ? options.rps : Infinity;
    this.#rate = this.#ceiling;
    this.#intervalMs = this.#rate === Infinity ? 0 : 1000 / this.#rate;
    this.#now = options.now;
    this.#sleep = options.sleep;
  }

  /** Holds every later send until `time` (epoch ms). A pause never gets shorter. */
  pauseUntil(time: number): void {
    if (time > this.#pausedUntil) this.#pausedUntil = time;
  }

  /** The CMS refused a request for its rate: send at half the rate from now on. */
  slowDown(): void {
    const current = this.#rate === Infinity ? this.#observedRate() : this.#rate;
    this.#setRate(Math.max(MIN_RPS, current / 2));
  }

  /** A request went through: creep back towards the ceiling. */
  speedUp(): void {
    if (this.#rate < this.#ceiling)
      this.#setRate(this.#rate + RECOVERY_STEP > this.#ceiling ? this.#ceiling : this.#rate + RECOVERY_STEP);
  }

  /** Current requests-per-second ceiling (Infinity when none). */
  get rate(): number {
    return this.#rate;
  }

  #setRate(rate: number): void {
    this.#rate = rate;
    this.#intervalMs = rate === Infinity ? 0 : 1000 / rate;
  }

  #observedRate(): number {
    const since = this.#now() - OBSERVE_MS;
    const sends = this.#recentSends.filter((t) => t >= since).length;
    return Math.max(MIN_RPS * 2, (sends * 1000) / OBSERVE_MS);
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
    const now = this.#now();
    this.#nextAt = now + this.#intervalMs;
    if (this.#ceiling === Infinity) {
      this.#recentSends.push(now);
      if (this.#recentSends.length > 4096)
        this.#recentSends = this.#recentSends.filter((t) => t >= now - OBSERVE_MS);
    }
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const waitMs = this.#waitMs();
        if (waitMs > 0) {
          // Re-check after waking: a pause may have been set (or extended) meanwhile. Whole
          // milliseconds: a timer for 0.3 ms fires at once on some clocks, and would spin.
          await this.#sleep(Math.ceil(waitMs));
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
