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

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}
