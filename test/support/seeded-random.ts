/** A small deterministic PRNG (mulberry32), so property and fuzz tests fail the same way twice. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const text = (length: number) => {
    const alphabet = ['a', 'b', ' ', '<', '&', '"', '\\', '\n', '你', '好', '🌏', 'é', '\u2028', '\u0000'];
    return Array.from({ length }, () => pick(alphabet)).join('');
  };
  return { next, int, pick, text };
}
