import type { Query } from './query.js';
import type { SearchMatch } from './search-hit.js';

/** BM25's saturation and length weight, over texts of some 400 characters on average. */
const K1 = 1.2;
const B = 0.75;
const AVERAGE_LENGTH = 400;
/** A text that holds the whole query as one phrase ranks above every text that holds its words apart. */
const WHOLE_PHRASE = 100;

/**
 * A text's score for a query the trigram index cannot narrow (short words, a pattern): BM25's
 * term-frequency part for each term, plus a bonus for the exact phrase.
 */
export function scoreText(query: Query, text: string, matches: readonly (readonly [number, number][])[]): number {
  const lengthWeight = 1 - B + (B * text.length) / AVERAGE_LENGTH;
  let score = 0;
  for (const found of matches) score += (found.length * (K1 + 1)) / (found.length + K1 * lengthWeight);
  if (query.whole && query.whole(text).length > 0) score += WHOLE_PHRASE;
  return score;
}

const SNIPPET_BEFORE = 60;
const SNIPPET_LENGTH = 220;

/** Some text around the first match, line breaks and tabs as spaces, with where each match lies in it. */
export function snippetOf(
  text: string,
  matches: readonly (readonly [number, number][])[],
): { snippet: string; matches: SearchMatch[] } {
  const all = matches.flat().sort((a, b) => a[0] - b[0]);
  const first = all[0]?.[0] ?? 0;
  let start = Math.max(0, first - SNIPPET_BEFORE);
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  // Never half a surrogate pair at either edge.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start -= 1;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1;
  const lead = start > 0 ? '…' : '';
  // Line breaks and tabs become one space each (offsets stay put); a text's own trailing space is left out.
  const atEnd = end === text.length;
  let body = text.slice(start, end).replace(/[\r\n\t\f\v]/g, ' ');
  if (atEnd) body = body.trimEnd();
  end = start + body.length;
  const snippet = `${lead}${body}${atEnd ? '' : '…'}`;
  const shown: SearchMatch[] = [];
  for (const [matchStart, matchEnd] of all) {
    if (matchEnd <= start || matchStart >= end) continue;
    const clipped = {
      start: Math.max(matchStart, start) - start + lead.length,
      end: Math.min(matchEnd, end) - start + lead.length,
    };
    const last = shown.at(-1);
    if (last && clipped.start <= last.end) last.end = Math.max(last.end, clipped.end);
    else shown.push(clipped);
  }
  return { snippet, matches: shown };
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
