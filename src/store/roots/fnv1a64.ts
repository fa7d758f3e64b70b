const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a, 64-bit, of `bytes`, as 16 lower-case hex digits (Go's `hash/fnv` New64a, `%016x`). */
export function fnv1a64Hex(bytes: Uint8Array): string {
  let hash = OFFSET_BASIS;
  for (const byte of bytes) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash.toString(16).padStart(16, '0');
}
