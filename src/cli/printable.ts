/**
 * Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides:
 * text from a session (a title, a message, a file name) could move the cursor, recolour or
 * reorder a terminal with them.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text from data as human output shows it: every control character escaped (`\n`, `\x1b`, `\u202e`), the rest as is. */
export function printable(text: string): string {
  return text.replace(UNSAFE, (character) => {
    const code = character.charCodeAt(0);
    return NAMED[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}
