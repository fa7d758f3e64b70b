/** Unicode's White_Space, which Go's `strings.TrimSpace` takes away. */
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const ALL_GO_SPACE = new RegExp(`^${GO_SPACE}*$`);
const GO_SPACE_AT_ENDS = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/**
 * Whether a text is all white space as Go's `strings.TrimSpace` sees it (Unicode's White_Space): U+0085 is, where
 * JavaScript's `trim()` keeps it; U+FEFF is not, where `trim()` takes it away.
 */
export function isGoSpace(text: string): boolean {
  return ALL_GO_SPACE.test(text);
}

/** `text` as Go's `strings.TrimSpace` leaves it: without the white space `isGoSpace` knows at either end. */
export function goTrimSpace(text: string): string {
  return text.replace(GO_SPACE_AT_ENDS, '');
}
