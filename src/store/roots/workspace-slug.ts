import type { Platform } from './platform.js';

/** A file-name component's byte budget on ext4, APFS and NTFS; longer slugs are cut and hashed (docs/format.md §1.3). */
const COMPONENT_BYTES = 255;
/** Room kept for `-` and 16 hex digits. */
const HASH_SUFFIX_BYTES = 17;

/**
 * The directory name Reasonix keeps a workspace's stores under, `<state>/projects/<slug>/`
 * (docs/format.md §1.3): from the absolute, cleaned workspace path, lower-cased on Windows, with every `/`,
 * `\` and `:` replaced by `-`. A slug over 255 bytes keeps its first 238 bytes (backing off to a
 * UTF-8 character boundary) and gets `-` and the FNV-1a-64 of the whole slug appended.
 */
export function workspaceSlug(absolutePath: string, platform: Platform): string {
  return boundComponent(unboundedSlug(absolutePath, platform));
}

/**
 * The slug before its 255-byte bound: what the FNV suffix hashes, and what tells whether two
 * folders share a slug (two long paths that differ only in `/` against `-` share the hash too).
 */
export function unboundedSlug(absolutePath: string, platform: Platform): string {
  const path = platform === 'win32' ? goToLower(absolutePath) : absolutePath;
  return path.replace(/[/\\:]/g, '-');
}

function boundComponent(slug: string): string {
  const bytes = Buffer.from(slug, 'utf8');
  if (bytes.length <= COMPONENT_BYTES) return slug;
  let cut = COMPONENT_BYTES - HASH_SUFFIX_BYTES;
  // A byte 10xxxxxx continues a character: cutting before it would split one.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return `${bytes.subarray(0, cut).toString('utf8')}-${fnv1a64Hex(bytes)}`;
}

/**
 * Go's `strings.ToLower`: each code point by its simple Unicode mapping. JavaScript's
 * `toLowerCase` applies the full mapping, which differs for one code point without context:
 * U+0130 (İ) becomes `i` in Go but `i̇` (two code points) in JavaScript.
 */
function goToLower(text: string): string {
  let lower = '';
  for (const char of text) lower += char === '\u0130' ? 'i' : char.toLowerCase();
  return lower;
}

/**
 * Whether two slug folder names name the same folder: on Windows NTFS resolves names without
 * regard to case, so a mixed-case slug an older Reasonix created is the lower-cased one.
 */
export function sameSlug(a: string | null, b: string | null, platform: Platform): boolean {
  if (a === null || b === null) return false;
  return platform === 'win32' ? goToLower(a) === goToLower(b) : a === b;
}

const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a, 64-bit, of `bytes`, as 16 lower-case hex digits (Go's `hash/fnv` New64a, `%016x`). */
export function fnv1a64Hex(bytes: Uint8Array): string {
  let hash = OFFSET_BASIS;
  for (const byte of bytes) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash.toString(16).padStart(16, '0');
}
