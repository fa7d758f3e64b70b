import { InvalidInputError } from './input-errors.js';

/**
 * Checks of what a caller passes to the library, made before anything is read: TypeScript's types bind only the
 * callers that use them, and a value of another type would otherwise fail deep in a read in Node's words (a
 * TypeError, not an RxError with a code) or be taken in silence (a count of -1).
 */

/** Refuses a path that is not a non-empty string. */
export function checkPath(path: unknown, name = 'path'): asserts path is string {
  if (typeof path !== 'string') throw new InvalidInputError(`${name} must be a path (a string), not ${typeOf(path)}`);
  if (path === '') throw new InvalidInputError(`${name} is empty: give the path of a session or a store`);
}

/** Refuses roots that are not a list of `{ kind, path }` (as `machineRoots()` or `resolveStoreRoots()` give them). */
export function checkRoots(roots: unknown): void {
  if (!Array.isArray(roots))
    throw new InvalidInputError(
      `roots must be a list of { kind, path } (as machineRoots()'s roots.roots), not ${typeOf(roots)}`,
    );
  for (const root of roots as unknown[]) {
    const { kind, path } = (typeof root === 'object' && root !== null ? root : {}) as Record<string, unknown>;
    if (typeof kind !== 'string' || typeof path !== 'string')
      throw new InvalidInputError(
        `each root must be an object { kind, path }, not ${JSON.stringify(root) ?? typeOf(root)}`,
      );
  }
}

/** The platforms whose rules rxstore knows (`Platform`). */
const PLATFORMS: readonly string[] = ['linux', 'darwin', 'win32'];

/** Refuses options that are not an object naming a platform whose rules rxstore knows (as `machineRoots().inputs.platform`). */
export function checkPlatformOptions(options: unknown, call: string): void {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError(`${call} needs its options, { platform, … }, not ${typeOf(options)}`);
  const { platform } = options as { platform?: unknown };
  if (typeof platform !== 'string' || !PLATFORMS.includes(platform))
    throw new InvalidInputError(
      `${call}: platform must be one of ${PLATFORMS.join(', ')} (machineRoots()'s inputs.platform), not ${JSON.stringify(platform) ?? typeOf(platform)}`,
    );
}

/** Refuses a count that is not a whole number of at least `least` (undefined is left to the caller's default). */
export function checkCount(value: unknown, name: string, least: number): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= least))
    throw new InvalidInputError(`${name} must be a whole number of at least ${least}, not ${String(value)}`);
}

/** What `follow()` takes: its options, never a cursor in their place. */
const FOLLOW_OPTIONS: readonly string[] = ['cursor', 'signal', 'pollMs', 'watch'];

/**
 * Refuses options of `follow()` it would not read as given: a cursor passed in their place (taken so, it would
 * follow from the log's start, giving again what was given), a name it does not know (a `pollms` would be taken
 * in silence), a wait between polls that is no positive number of milliseconds.
 */
export function checkFollowOptions(options: unknown): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new InvalidInputError(`follow takes its options, { cursor, signal, pollMs, watch }, not ${typeOf(options)}`);
  const given = options as Record<string, unknown>;
  if ('offset' in given && 'version' in given)
    throw new InvalidInputError('follow takes its options, not a cursor: give the cursor as follow({ cursor })');
  const unknown = Object.keys(given).filter((key) => !FOLLOW_OPTIONS.includes(key));
  if (unknown.length > 0)
    throw new InvalidInputError(
      `follow does not know the option ${unknown.map((key) => JSON.stringify(key)).join(', ')}: it takes ${FOLLOW_OPTIONS.join(', ')}`,
    );
  const { pollMs, watch, signal } = given;
  if (pollMs !== undefined && !(typeof pollMs === 'number' && Number.isFinite(pollMs) && pollMs > 0))
    throw new InvalidInputError(`pollMs must be a number of milliseconds above 0, not ${String(pollMs)}`);
  if (watch !== undefined && typeof watch !== 'boolean')
    throw new InvalidInputError(`watch must be true or false, not ${typeOf(watch)}`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new InvalidInputError(`signal must be an AbortSignal, not ${typeOf(signal)}`);
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}
