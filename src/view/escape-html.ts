import { printable } from '../index.js';

/** A lone surrogate (a string cut inside an emoji, or bad data): not a character a page can show. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder would write it. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text from a session as HTML text: every character that could open markup, an entity or an
 * attribute is replaced, so nothing a session holds ever becomes markup. Lone surrogates (a
 * string cut inside an emoji) become U+FFFD rather than bytes a browser would guess about.
 * Control characters and bidirectional overrides are shown as escapes (`\x1b`, `\u202e`): a page
 * is also read with `cat`, where they would act on the terminal, and a browser would reorder by them.
 */
export function escapeHtml(text: string): string {
  return printable(wellFormed(text), { keepLines: true }).replace(
    /[&<>"']/g,
    (character: string) => ENTITIES[character]!,
  );
}
