import { wellFormed } from './well-formed.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text from a session as HTML text: every character that could open markup, an entity or an
 * attribute is replaced, so nothing a session holds ever becomes markup. Lone surrogates (a
 * string cut inside an emoji) become U+FFFD rather than bytes a browser would guess about.
 */
export function escapeHtml(text: string): string {
  return wellFormed(text).replace(/[&<>"']/g, (character: string) => ENTITIES[character]!);
}
