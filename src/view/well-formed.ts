/** A lone surrogate (a string cut inside an emoji, or bad data): not a character a page can show. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The text with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder would write it. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
