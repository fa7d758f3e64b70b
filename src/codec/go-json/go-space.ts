/**
 * Whether a text is all white space as Go's `strings.TrimSpace` sees it (Unicode's White_Space): U+0085 is, where
 * JavaScript's `trim()` keeps it; U+FEFF is not, where `trim()` takes it away.
 */
export function isGoSpace(text: string): boolean {
  return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(text);
}
