import { RE2JS } from 're2js';
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
const escapeLiteral = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/** A literal, or words that match with any run of white space between them. */
function literalMatcher(words: readonly string[], caseSensitive: boolean): TermMatcher {
  const pattern = new RegExp(words.map(escapeLiteral).join('\\s+'), caseSensitive ? 'gu' : 'giu');
  return (text) => {
    const found: [number, number][] = [];
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match && found.length < MAX_MATCHES; match = pattern.exec(text))
      found.push([match.index, match.index + match[0].length]);
    return found;
  };
}

/**
 * A regular expression run by RE2JS: linear in the text whatever the pattern (no backtracking), so
 * a pathological pattern cannot hang a search. An empty match counts as none.
 */
function patternMatcher(source: string, caseSensitive: boolean): TermMatcher {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    // RE2JS names the pattern as it compiled it, `(?i)` before it when case is ignored: the person typed none.
    const reason = (error as Error).message.replace(`(?i)${source}`, source);
    throw new InvalidInputError(`invalid --regex ${JSON.stringify(source)}: ${reason}`);
  }
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

/**
 * Parses what a person typed: words (ANDed) and `"quoted phrases"` (an unclosed quote runs to the
 * end; `\"` is a quote to find), every other character the user's own — nothing is passed to the index engine as syntax. Case
 * matters only when the query has a capital letter. With `regex`, the whole query is one pattern.
 */
export function parseQuery(text: string, options: { regex?: boolean } = {}): Query {
  if (text.trim() === '') throw new InvalidInputError('the query is empty: give words to search for');
  if (options.regex) {
    // A capital typed as an escape (\S, \W, \D, \p{Lu}) is not a capital of the text.
    const caseSensitive = hasCapital(text.replace(/\\p\{[^}]*\}|\\P\{[^}]*\}|\\./g, ''));
    return { terms: [patternMatcher(text, caseSensitive)], phrases: [], whole: undefined, caseSensitive };
  }
  const caseSensitive = hasCapital(text);
  const groups: string[][] = [];
  // A quote typed as \" is a quote to search for, inside a phrase or a word.
  for (const [, phrase, word] of text.matchAll(/"((?:\\"|[^"])*)"?|((?:\\"|[^\s"])+)/g)) {
    const words = (phrase ?? word ?? '')
      .replaceAll('\\"', '"')
      .split(/\s+/)
      .filter((part) => part !== '');
    if (words.length > 0) groups.push(words);
  }
  if (groups.length === 0) throw new InvalidInputError('the query is empty: give words to search for');
  const all = groups.flat();
  return {
    terms: groups.map((words) => literalMatcher(words, caseSensitive)),
    phrases: [...new Set(groups.map((words) => words.join(' ')))],
    whole: all.length > 1 ? literalMatcher(all, caseSensitive) : undefined,
    caseSensitive,
  };
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
