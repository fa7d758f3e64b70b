/**
 * Maps `items` through `work` with at most `limit` calls in flight, yielding results in the items'
 * order as soon as each is ready: a listing streams while later rows are still being read.
 */
export async function* mapInOrder<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const pending: Promise<R>[] = [];
  let next = 0;
  const startMore = () => {
    while (next < items.length && pending.length < limit) {
      const started = work(items[next]!);
      // A failure surfaces when its turn comes; until then it must not count as unhandled.
      started.catch(() => undefined);
      pending.push(started);
      next += 1;
    }
  };
  startMore();
  while (pending.length > 0) {
    const result = await pending.shift()!;
    startMore();
    yield result;
  }
}
