/**
 * Characters a terminal or a page must not be handed raw in text that came from a session (a
 * title, a tool name, a file name): C0 and C1 controls and DEL, which can clear a terminal, write
 * its clipboard (OSC 52) or recolour it; line and paragraph separators; and the invisible format
 * characters that reorder or hide what a reader sees — bidirectional marks, embeddings, overrides
 * and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width space and word
 * joiners (U+200B, U+2060–U+2064), the byte-order mark (U+FEFF) and interlinear annotations
 * (U+FFF9–U+FFFB). The zero-width joiner and non-joiner (U+200C, U+200D) stay: scripts and emoji
 * sequences need them, and they move nothing.
 */
const FORMAT_CONTROLS =
  '\\u061c\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff\\ufff9-\\ufffb';
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT_CONTROLS}]`, 'g');
/** The same, for a test: without `g`, a regular expression keeps no place between calls. */
const UNSAFE_ANYWHERE = new RegExp(UNSAFE.source);
/** The same, less line feeds and tabs: what text that keeps its lines (a code block, a `<pre>`) must not hold. */
const UNSAFE_BUT_LINES = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT_CONTROLS}]`, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Whether `text` holds a character `printable` escapes: text a shell command must spell in escapes, not as is. */
export function holdsUnprintable(text: string): boolean {
  return UNSAFE_ANYWHERE.test(text);
}

/** Each character `printable` escapes, in `text`, replaced by `spell`'s spelling of it. */
export function replaceUnprintable(text: string, spell: (character: string) => string): string {
  return text.replace(UNSAFE, spell);
}

/** One unsafe character as the escape a person reads: `\n`, `\x1b`, `\u202e`. */
function escapeOf(character: string): string {
  const code = character.charCodeAt(0);
  return (
    NAMED[character] ??
    (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/** How `printable` treats line breaks. */
export interface PrintableOptions {
  /**
   * Keep line feeds and tabs (a code block, a `<pre>`): a CRLF is a line break (Windows output), a
   * lone CR, which would let a later part of a line overwrite an earlier one on a terminal, is `\r`.
   * By default the text is one line and every control character is escaped.
   */
  keepLines?: boolean;
}

/**
 * Text from data as a person is shown it: every control and invisible format character escaped
 * (`\n`, `\x1b`, `\u202e`), the rest as is. The one escape every command's text and every page uses.
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  return options.keepLines
    ? text.replace(/\r\n/g, '\n').replace(UNSAFE_BUT_LINES, escapeOf)
    : text.replace(UNSAFE, escapeOf);
}
