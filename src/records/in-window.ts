/**
 * Calls `work` for the items of `items`, at most `size` at a time, taking the next item only
 * when a place is free. Nothing is made ahead for the items still to come (no task, promise or
 * closure per item, as a queue such as p-limit's holds), so over 100,000 documents only `size`
 * of them are in hand at once. After a failure no new item is taken; the call rejects with it
 * once the items in hand are done.
 */
export async function eachInWindow<T>(
  items: Iterator<T>,
  size: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure) {
      const next = items.next();
      if (next.done) return;
      try {
        await work(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, size) }, lane));
  if (failure) throw failure.error;
}
