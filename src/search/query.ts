import type { RE2JS } from 're2js';
import { InvalidInputError } from '../errors/index.js';

/** A query as typed, ready to match: literal words and phrases (ANDed), or one pattern. */
export interface Query {
  /** Each must match somewhere in a text: words and phrases as literal text, or the one pattern. */
  terms: readonly TermMatcher[];
  /** Each word or phrase as the index narrows by it, its words one space apart (none for a pattern). */
  phrases: readonly string[];
  /** The whole query as one phrase, when it has more than one word: a text holding it ranks first. */
  whole: TermMatcher | undefined;
  caseSensitive: boolean;
}

/** Where one term matches in a text: `[start, end)` pairs, in order. */
export type TermMatcher = (text: string) => [number, number][];

/** Past this many matches of one term in one text, the rest are not counted. */
const MAX_MATCHES = 256;

const hasCapital = (text: string) => /\p{Lu}/u.test(text);
/** A pattern's class of one case of letters, in RE2's words: `\p{Lu}`, `\P{Ll}`, `\p{Lt}`, `[[:upper:]]`, `[[:^lower:]]`. */
const NAMES_A_CASE = /\\[pP]\{\^?L[ult]\}|\[:\^?(?:upper|lower):\]/;
const escapeLiteral = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * A literal, or words that match with any run of white space between them. Each word is a pattern of its own,
 * matched where the last one's white space ends: one pattern of every word would grow with the phrase, and past
 * some thousands of words V8 refuses to compile it (a stack overflow). A word holds no white space, so the white
 * space after it is all taken and a phrase matches where the one pattern would, and as long.
 */
function literalMatcher(words: readonly string[], caseSensitive: boolean): TermMatcher {
  const flags = caseSensitive ? 'u' : 'iu';
  const [first, ...rest] = words.map(escapeLiteral);
  const start = new RegExp(first!, `g${flags}`);
  // Sticky: each matches only where it is set to start.
  const next = rest.map((word) => new RegExp(`\\s+${word}`, `y${flags}`));
  /** Where the phrase begun at `from` ends, or -1 where it does not go on. */
  const endOf = (text: string, from: number) => {
    let at = from;
    for (const pattern of next) {
      pattern.lastIndex = at;
      if (!pattern.test(text)) return -1;
      at = pattern.lastIndex;
    }
    return at;
  };
  return (text) => {
    const found: [number, number][] = [];
    start.lastIndex = 0;
    for (let match = start.exec(text); match && found.length < MAX_MATCHES; match = start.exec(text)) {
      const end = endOf(text, start.lastIndex);
      if (end >= 0) {
        found.push([match.index, end]);
        start.lastIndex = end;
      } else {
        // Tried again from the next character, as one pattern would be: `ab ab` within `ab ab ab`.
        start.lastIndex = match.index + (text.codePointAt(match.index)! > 0xffff ? 2 : 1);
      }
    }
    return found;
  };
}

/**
 * A regular expression run by RE2JS: linear in the text whatever the pattern (no backtracking), so
 * a pathological pattern cannot hang a search. An empty match counts as none.
 */
async function patternMatcher(source: string, caseSensitive: boolean): Promise<TermMatcher> {
  // Loaded for a pattern only: a third of a megabyte that every other command would load for nothing.
  const { RE2JS: engine } = await import('re2js');
  let compiled: RE2JS;
  try {
    compiled = engine.compile(source, caseSensitive ? 0 : engine.CASE_INSENSITIVE);
  } catch (error) {
    // RE2JS names the pattern as it compiled it, `(?i)` before it when case is ignored: the person typed none.
    const reason = (error as Error).message.replace(`(?i)${source}`, source);
    // As typed, between backquotes as RE2JS quotes it: JSON's quoting would double each backslash of the pattern.
    throw new InvalidInputError(`invalid regular expression \`${source}\`: ${reason}`);
  }
  // An empty match marks nothing to show, so it is no hit: a pattern that can make one (`^`, `a*`, `\b`) would
  // find less than it says, or nothing, in silence.
  if (EMPTY_MATCH_PROBES.some((probe) => matchesEmpty(compiled, probe)))
    throw new InvalidInputError(
      `regular expression \`${source}\` can match empty text, which marks nothing to find: make every match hold at least one character`,
    );
  return (text) => {
    const found: [number, number][] = [];
    const matcher = compiled.matcher(text);
    while (found.length < MAX_MATCHES && matcher.find()) {
      const [start, end] = [matcher.start(), matcher.end()];
      if (end > start) found.push([start, end]);
    }
    return found;
  };
}

/** Texts on which a pattern that can match empty text does: every place a zero-width assertion can hold. */
const EMPTY_MATCH_PROBES = ['', 'a', ' a ', 'a\nb', '0_-'];

function matchesEmpty(compiled: RE2JS, text: string): boolean {
  const matcher = compiled.matcher(text);
  while (matcher.find()) if (matcher.end() === matcher.start()) return true;
  return false;
}

/**
 * Parses what a person typed: words (ANDed) and `"quoted phrases"`, every other character the user's own —
 * nothing is passed to the index engine as syntax. Case matters only when the query has a capital letter. With
 * `regex`, the whole query is one pattern.
 */
export async function parseQuery(text: string, options: { regex?: boolean } = {}): Promise<Query> {
  if (text.trim() === '') throw new InvalidInputError('the query is empty: give words to search for');
  if (options.regex) {
    // A capital typed as an escape (\S, \W, \D, \p{Lu}, \pN) is not a capital of the text; a class that names a case is
    // a case asked for (ignored, `\p{Lu}` would take lower-case letters too).
    const caseSensitive =
      hasCapital(text.replace(/\\[pP]\{[^}]*\}|\\[pP][A-Za-z]|\\./g, '')) || NAMES_A_CASE.test(text);
    return { terms: [await patternMatcher(text, caseSensitive)], phrases: [], whole: undefined, caseSensitive };
  }
  const caseSensitive = hasCapital(text);
  const groups = wordGroups(text);
  if (groups.length === 0) throw new InvalidInputError('the query is empty: give words to search for');
  const all = groups.flat();
  return {
    terms: groups.map((words) => literalMatcher(words, caseSensitive)),
    phrases: [...new Set(groups.map((words) => words.join(' ')))],
    whole: all.length > 1 ? literalMatcher(all, caseSensitive) : undefined,
    caseSensitive,
  };
}

const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char);

/**
 * The words of a query, each alone or in a phrase: a phrase is a `"` that starts a word, then, before the next
 * `"` that ends a word, something other than white space. Every other `"` is a character to find: one inside a
 * word (`plat"ypus`, never a phrase break, which would find "platypus"), one alone, one never closed; and `\"`,
 * inside a phrase or out of one.
 */
function wordGroups(text: string): string[][] {
  const unescaped = (typed: string) => typed.replaceAll('\\"', '"');
  const groups: string[][] = [];
  let at = 0;
  while (at < text.length) {
    if (isSpace(text[at])) {
      at += 1;
      continue;
    }
    const close = text[at] === '"' ? phraseEnd(text, at) : -1;
    if (close > 0) {
      groups.push(
        unescaped(text.slice(at + 1, close))
          .split(/\s+/)
          .filter((word) => word !== ''),
      );
      at = close + 1;
      continue;
    }
    let end = at;
    while (end < text.length && !isSpace(text[end])) end += 1;
    groups.push([unescaped(text.slice(at, end))]);
    at = end;
  }
  return groups;
}

/** Where the phrase opened by the `"` at `open` closes: the first `"` after it that ends a word, or -1. */
function phraseEnd(text: string, open: number): number {
  for (let at = open + 1; at < text.length; at += 1) {
    if (text[at] === '\\' && text[at + 1] === '"') at += 1;
    else if (text[at] === '"' && (at + 1 === text.length || isSpace(text[at + 1])))
      return text.slice(open + 1, at).trim() === '' ? -1 : at;
  }
  return -1;
}

/** How a text matched a query: every term's matches, or undefined when a term has none. */
export function matchText(query: Query, text: string): [number, number][][] | undefined {
  const found: [number, number][][] = [];
  for (const term of query.terms) {
    const matches = term(text);
    if (matches.length === 0) return undefined;
    found.push(matches);
  }
  return found;
}
