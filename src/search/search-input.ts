import { checkRoots } from '../errors/caller-input.js';
import { InvalidInputError } from '../errors/index.js';
import { pathsOf } from '../store/roots/platform.js';
import { SEARCH_KINDS, type SearchKind } from './search-hit.js';
import type { SearchOptions } from './search.js';

/** The kinds of text a tool wrote or was given: what `tool` narrows. */
const TOOL_KINDS: readonly SearchKind[] = ['tool-input', 'tool-output', 'command', 'file'];

/**
 * Refuses, before anything is read, what a caller may pass to `search` that it cannot take: TypeScript's types
 * bind only callers that use them, and such a value would otherwise fail deep in a search in words of its own
 * (an invalid Date's RangeError, a list that is no list) or be taken in silence (a negative `around`).
 */
export function checkSearchInput(text: unknown, options: SearchOptions): void {
  if (typeof text !== 'string') throw new InvalidInputError(`the query must be a string, not ${typeof text}`);
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('search takes its options as an object: { roots, platform, … }');
  checkRoots(options.roots);
  if (!['linux', 'darwin', 'win32'].includes(options.platform))
    throw new InvalidInputError(`platform must be linux, darwin or win32, not ${JSON.stringify(options.platform)}`);
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
    // Empty or blank, each would narrow to nothing (no tool, file or workspace is called so) or to everything (every
    // id starts with ''): a search that says nothing was found, of what could not be.
    if (typeof value === 'string' && value.trim() === '')
      throw new InvalidInputError(`${name} is ${value === '' ? 'empty' : 'blank'}: name one, or leave it out`);
  }
  // Narrowings that no text can meet both of: a search that says nothing was found, of what could not be.
  const kinds = options.kinds;
  if (options.tool !== undefined && kinds !== undefined && !kinds.some((kind) => TOOL_KINDS.includes(kind)))
    throw new InvalidInputError(
      `the tool ${JSON.stringify(options.tool)} narrows only ${TOOL_KINDS.join(', ')} texts, and the kinds asked for (${kinds.join(', ')}) are none of them`,
    );
  // With a file and no query, the file's touches are listed, one a session.
  const touchesOnly = options.file !== undefined && text.trim() === '';
  if (touchesOnly && kinds !== undefined && !kinds.includes('file'))
    throw new InvalidInputError(
      `a file with no query lists where sessions touched it (kind file), not ${kinds.join(', ')} texts: give a query to search those`,
    );
  // No pattern to take, no message to show around.
  if (touchesOnly && (options.regex === true || options.around !== undefined))
    throw new InvalidInputError(
      `a file with no query lists where sessions touched it: ${options.regex === true ? 'regex' : 'around'} needs a query`,
    );
  // Until is the first time left out: since at it, or after it, leaves no time.
  if (options.since && options.until && options.since.getTime() >= options.until.getTime())
    throw new InvalidInputError(
      `since (${options.since.toISOString()}) is not before until (${options.until.toISOString()}), which is left out: no time is both`,
    );
  // Relative to what? The command line resolves one against its working folder; a library caller says which.
  if (options.workspace !== undefined && !pathsOf(options.platform).isAbsolute(options.workspace))
    throw new InvalidInputError(`workspace must be an absolute path, not ${JSON.stringify(options.workspace)}`);
  if (options.cacheDir !== undefined && (typeof options.cacheDir !== 'string' || options.cacheDir.trim() === ''))
    throw new InvalidInputError("cacheDir must name a folder: leave it out for rxstore's cache folder");
  for (const name of ['regex', 'index', 'messageIndex'] as const) {
    const value: unknown = options[name];
    if (value !== undefined && typeof value !== 'boolean')
      throw new InvalidInputError(`${name} must be true or false, not ${JSON.stringify(value)}`);
  }
}
