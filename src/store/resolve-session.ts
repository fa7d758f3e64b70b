import { lstat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import type { Stats } from 'node:fs';
import {
  AmbiguousSessionError,
  fileSystemErrorOf,
  isSystemError,
  NotASessionError,
  systemErrorInWords,
  UsageError,
} from '../errors/index.js';
import { copiesMatching, findSession } from './listing/find-session.js';
import type { SessionCopy } from './listing/session-copy.js';
import { machineRoots, type MachineRootOptions } from './roots/machine-roots.js';

/** Why nothing is at a path a person typed, the system's words. */
const NOTHING_THERE = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP']);

/**
 * What is at a path a person typed: its stats, or why nothing is (a name too long for the file
 * system names nothing, as a missing one does: what was typed decides the exit code, not how the
 * system failed on it). Any other system error is the file system's.
 */
async function typedPath(path: string): Promise<Stats | string> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isSystemError(error) && NOTHING_THERE.has(error.code ?? '')) return systemErrorInWords(error);
    throw fileSystemErrorOf(error, path);
  }
}

/** What a person typed has a path's shape (a separator, `.jsonl`, `.`), which no session id has. */
export function pathShaped(arg: string): boolean {
  return (
    arg.includes('/') || arg.includes(sep) || isAbsolute(arg) || arg.endsWith('.jsonl') || arg === '.' || arg === '..'
  );
}

/** What a person typed names a path, not an id: it exists, or it has a path's shape. */
export async function isPath(arg: string): Promise<boolean> {
  return pathShaped(arg) || typeof (await typedPath(arg)) !== 'string';
}

const candidate = (copy: SessionCopy) => ({ id: copy.id, store: copy.store, path: copy.path });

/** Where `resolveSession` looks up an id (the roots `machineRoots` gives), and which copies it takes. */
export interface ResolveSessionOptions extends MachineRootOptions {
  /** Sessions-v4 (or desktop) directories only (a caller that writes): JSONL copies are not candidates. */
  v4Only?: boolean;
}

/**
 * The path of the session a person named: a path as given, or the copy of the one conversation
 * whose id is (or starts with) what they typed, looked up under the roots `machineRoots(options)`
 * gives (`home`, `stateHome`, the environment). A prefix of several conversations is refused with
 * the candidates (`AmbiguousSessionError`); of one conversation, its newest store's copy is taken
 * (under `v4Only`, the only sessions-v4 copy, or a path). A path with nothing there is
 * `NotASessionError`.
 */
export async function resolveSession(arg: string, options: ResolveSessionOptions = {}): Promise<string> {
  if (arg.trim() === '')
    throw new UsageError('name a session: its id or the start of one, a session directory, or a .jsonl transcript');
  // Where to look is checked whatever names the session: a --cwd that is not there is refused by path too.
  const { inputs, roots } = await machineRoots(options);
  if (await isPath(arg)) {
    const full = resolve(arg);
    const there = await typedPath(full);
    if (typeof there === 'string') throw new NotASessionError(`${full}: ${there}`, { file: full });
    return full;
  }
  const conversations = await findSession(roots.roots, arg, inputs.platform);
  const named = conversations.map((conversation) => copiesMatching(conversation, arg));
  if (named.length > 1) {
    throw new AmbiguousSessionError(
      `${JSON.stringify(arg)} is the start of ${named.length} sessions' ids; give more of the id`,
      named.map((copies) => candidate(copies[0]!)),
    );
  }
  const copies = options.v4Only ? named[0]!.filter((copy) => copy.format === 'v4') : named[0]!;
  if (copies.length === 0) {
    throw new UsageError(
      `${named[0]![0]!.path}: a JSONL transcript; this command works on sessions-v4 directories (migrate it first)`,
    );
  }
  if (options.v4Only && copies.length > 1) {
    throw new AmbiguousSessionError(
      `${JSON.stringify(arg)} has ${copies.length} sessions-v4 copies; name the one to change by its path`,
      copies.map(candidate),
    );
  }
  return copies[0]!.path;
}
