import { ARGUMENT_BREAK } from './documents.js';
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

/** What a snippet shows as a space: a line break, a tab, the break between a call's arguments. */
const SHOWN_AS_SPACE = new RegExp(`[\\r\\n\\t\\f\\v${ARGUMENT_BREAK}]`, 'g');

/**
 * Some text around the first place that shows the most of the query's terms (`matches` holds each
 * term's), line breaks and tabs as spaces, with where each match lies in it.
 */
export function snippetOf(
  text: string,
  matches: readonly (readonly [number, number][])[],
): { snippet: string; matches: SearchMatch[] } {
  const all = matches.flat().sort((a, b) => a[0] - b[0]);
  let start = Math.max(0, snippetAnchor(matches) - SNIPPET_BEFORE);
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  // Never half a surrogate pair at either edge.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start -= 1;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end += 1;
  const lead = start > 0 ? '…' : '';
  // Line breaks, tabs and the break between a call's arguments become one space each (offsets stay put); a
  // text's own trailing space is left out.
  const atEnd = end === text.length;
  let body = text.slice(start, end).replace(SHOWN_AS_SPACE, ' ');
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

/**
 * Where the snippet's first match starts: the earliest match from which one snippet shows the most
 * of the query, each term weighing the less the more often the text holds it (a term's matches are
 * counted up to the matcher's cap). A text that holds a common word everywhere and a rare one late
 * is shown at the rare one, not at its first common word.
 */
function snippetAnchor(matches: readonly (readonly [number, number][])[]): number {
  const all = matches
    .flatMap((found, term) => found.map(([start, end]) => ({ start, end, term })))
    .sort((a, b) => a.start - b.start);
  const span = SNIPPET_LENGTH - SNIPPET_BEFORE;
  const weights = matches.map((found) => 1 / found.length);
  const inView = new Map<number, number>();
  let [best, bestWeight, right] = [all[0]?.start ?? 0, 0, 0];
  // A window of matches from `left` that one snippet shows, slid along the text.
  for (let left = 0; left < all.length; left += 1) {
    right = Math.max(right, left);
    while (right < all.length && all[right]!.end <= all[left]!.start + span) {
      inView.set(all[right]!.term, (inView.get(all[right]!.term) ?? 0) + 1);
      right += 1;
    }
    let weight = 0;
    for (const term of inView.keys()) weight += weights[term]!;
    if (weight > bestWeight) [best, bestWeight] = [all[left]!.start, weight];
    if (right > left) {
      const term = all[left]!.term;
      const remaining = inView.get(term)! - 1;
      if (remaining === 0) inView.delete(term);
      else inView.set(term, remaining);
    }
  }
  return best;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
