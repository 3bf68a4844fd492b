/**
 * Runs async tasks one at a time, in arrival order. Every mutation of the store goes through one
 * queue, so id allocation, the checks a write depends on (does that category exist?) and the
 * durable write happen without another write interleaving.
 */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    // The chain must survive a failed task; the caller still sees the rejection through `result`.
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every task queued so far has settled. */
  drain(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}
