import { InvalidInputError } from '../errors/index.js';
import { SEARCH_KINDS } from './search-hit.js';
import type { SearchOptions } from './search.js';

/**
 * Refuses, before anything is read, what a caller may pass to `search` that it cannot take: TypeScript's types
 * bind only callers that use them, and such a value would otherwise fail deep in a search in words of its own
 * (an invalid Date's RangeError, a list that is no list) or be taken in silence (a negative `around`).
 */
export function checkSearchInput(text: unknown, options: SearchOptions): void {
  if (typeof text !== 'string') throw new InvalidInputError(`the query must be a string, not ${typeof text}`);
  if (options.kinds !== undefined && !Array.isArray(options.kinds))
    throw new InvalidInputError(`kinds must be a list of kinds: ${SEARCH_KINDS.join(', ')}`);
  // An empty list would select no text: a search that can find nothing, said as none found.
  if (options.kinds?.length === 0)
    throw new InvalidInputError(
      `kinds is empty: name one or more of ${SEARCH_KINDS.join(', ')}, or leave it out for all`,
    );
  for (const kind of options.kinds ?? [])
    if (!SEARCH_KINDS.includes(kind))
      throw new InvalidInputError(`unknown kind ${JSON.stringify(kind)}: one of ${SEARCH_KINDS.join(', ')}`);
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit > 0))
    throw new InvalidInputError('limit must be a whole number above 0');
  if (options.around !== undefined && !(Number.isInteger(options.around) && options.around >= 0))
    throw new InvalidInputError('around must be a whole number, 0 or more');
  for (const name of ['since', 'until'] as const) {
    const time: unknown = options[name];
    if (time !== undefined && !(time instanceof Date && !Number.isNaN(time.getTime())))
      throw new InvalidInputError(`${name} must be a valid Date, not ${String(time)}`);
  }
  for (const name of ['tool', 'file', 'workspace', 'session'] as const) {
    const value: unknown = options[name];
    if (value !== undefined && typeof value !== 'string')
      throw new InvalidInputError(`${name} must be a string, not ${typeof value}`);
    // Empty, each would narrow to nothing (no tool, file or workspace has no name) or to everything (every id starts with it).
    if (value === '') throw new InvalidInputError(`${name} is empty: name one, or leave it out`);
  }
}
