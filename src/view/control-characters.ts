/**
 * Control characters (C0, DEL, C1), line and paragraph separators and bidirectional overrides and
 * isolates: text from a session (a title, a tool name, a file name) could clear a terminal, write
 * its clipboard (OSC 52), recolour it, or reorder what a reader sees with them.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, less line feeds and tabs: what text that keeps its lines (a code block, a `<pre>`) must not hold. */
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One unsafe character as the escape a person reads: `\n`, `\x1b`, `\u202e`. */
function escapeOf(character: string): string {
  const code = character.charCodeAt(0);
  return NAMED[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/** Text on one line with every control character escaped (`\n`, `\x1b`, `\u202e`), the rest as is. */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, escapeOf);
}

/**
 * Text that keeps its lines and tabs, every other control character escaped. A CRLF is a line
 * break (Windows output); a lone CR, which would let a later part of a line overwrite an earlier
 * one on a terminal, is shown as `\r`.
 */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE_BUT_LINES, escapeOf);
}
