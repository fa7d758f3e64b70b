/** Everything an iterator yields before it stops, and what it stopped with (undefined when it ended). */
export async function drain<T>(items: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const seen: T[] = [];
  try {
    for await (const item of items) seen.push(item);
  } catch (error) {
    return { items: seen, error };
  }
  return { items: seen, error: undefined };
}
