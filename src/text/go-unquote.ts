// Go writes a string with %q (strconv.Quote) as a double-quoted Go literal: `"` and `\` escaped, control
// characters as \n, \t, … or \xNN, other characters it does not print as \uNNNN or \UNNNNNNNN, and bytes
// that are not UTF-8 as \xNN. Reasonix names the workspace that way in its session-context message.

const SHORT_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  '"': 34,
  "'": 39,
};

/**
 * The text of a Go double-quoted literal's inside (without its quotes), as Go's strconv.Unquote reads it:
 * escapes undone, `\xNN` and octal escapes taken as bytes, the whole decoded as UTF-8. Undefined for text
 * Go would not unquote (an unknown or cut escape, a bare `"`).
 */
export function goUnquote(inside: string): string | undefined {
  if (!inside.includes('\\')) return inside.includes('"') ? undefined : inside;
  const bytes: number[] = [];
  const text = (chars: string) => bytes.push(...Buffer.from(chars, 'utf8'));
  for (let at = 0; at < inside.length; ) {
    const char = inside[at]!;
    if (char === '"') return undefined;
    if (char !== '\\') {
      const point = inside.codePointAt(at)!;
      const whole = String.fromCodePoint(point);
      text(whole);
      at += whole.length;
      continue;
    }
    const kind = inside[at + 1];
    if (kind === undefined) return undefined;
    if (kind in SHORT_ESCAPES) {
      bytes.push(SHORT_ESCAPES[kind]!);
      at += 2;
    } else if (kind === 'x' || kind === 'u' || kind === 'U') {
      const digits = { x: 2, u: 4, U: 8 }[kind];
      const hex = inside.slice(at + 2, at + 2 + digits);
      if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
      const value = Number.parseInt(hex, 16);
      if (kind === 'x') bytes.push(value);
      else if (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return undefined;
      else text(String.fromCodePoint(value));
      at += 2 + digits;
    } else if (kind >= '0' && kind <= '7') {
      const octal = inside.slice(at + 1, at + 4);
      if (!/^[0-7]{3}$/.test(octal) || Number.parseInt(octal, 8) > 255) return undefined;
      bytes.push(Number.parseInt(octal, 8));
      at += 4;
    } else return undefined;
  }
  return Buffer.from(bytes).toString('utf8');
}
