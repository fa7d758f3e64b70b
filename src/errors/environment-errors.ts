import type { CodeOf } from './codes.js';
import { RxError } from './rx-error.js';
import { destinationOf, isSystemError, pathOfSystemError, systemErrorInWords } from './system-error.js';

/** The machine rather than the store: the file system, a missing zstd, a lock taken away (exit 1). */
export abstract class EnvironmentError extends RxError {
  abstract override readonly code: CodeOf<'environment'>;
}

/**
 * The system refused a file operation on a path rxstore was given or writes (`<path>: permission
 * denied`): the errno in words, the path named (a temporary name replaced by its file), the errno
 * code kept in `data.errno` and the system's error as the cause.
 */
export class FileSystemError extends EnvironmentError {
  override readonly code = 'RX_FILE_SYSTEM';

  constructor(error: NodeJS.ErrnoException, path = pathOfSystemError(error)) {
    const file = path === undefined ? undefined : destinationOf(path);
    super(
      file === undefined ? systemErrorInWords(error) : `${file}: ${systemErrorInWords(error)}`,
      { ...(file === undefined ? {} : { file }), errno: error.code! },
      { cause: error },
    );
  }

  /**
   * `error` as the coded error it is: a Node system error becomes a `FileSystemError` (naming `path`
   * when the system names none); anything else is returned as it is.
   */
  static from(error: unknown, path?: string): unknown {
    return fileSystemErrorOf(error, path);
  }

  /** The file a temporary path rxstore writes through stands for: a person is told of the file they asked for. */
  static destinationOf(path: string): string {
    return destinationOf(path);
  }
}

/**
 * Neither Node's built-in zstd nor the optional zstd-napi addon is there to read or write a frame.
 * It says nothing about a session, so no reader reports it as a session's damage (its family is not
 * `damaged`); it leaves every read and write as it is, with what to install in its one-line message.
 */
export class ZstdUnavailableError extends EnvironmentError {
  override readonly code = 'RX_ZSTD_UNAVAILABLE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, {}, options);
  }
}

/**
 * A write that did not write all it was asked to: a write that wrote nothing (a full device that
 * says no error), or a file found shorter or longer than what was written to it before it was
 * published. Nothing is published: the file it was to replace is left as it was.
 */
export class ShortWriteError extends EnvironmentError {
  override readonly code = 'RX_SHORT_WRITE';
}

/**
 * A file, record or line larger than rxstore reads into memory: its own bound (what a string or a
 * buffer can hold), not damage — Reasonix may well read it. `data.file` names it, `data.found` its size.
 */
export class TooLargeError extends EnvironmentError {
  override readonly code = 'RX_TOO_LARGE';
}

/** Thrown into the locked work when another rxstore process took rxstore's store lock from under it. */
export class StoreLockCompromisedError extends EnvironmentError {
  override readonly code = 'RX_LOCK_COMPROMISED';
}

/**
 * A system error (ENOENT, EACCES, EISDIR, …) as the coded error a caller gets; any other error is
 * returned as it is (an RxError already, or a fault of rxstore's own that must not pass for the system's).
 */
export function fileSystemErrorOf(error: unknown, path?: string): unknown {
  return isSystemError(error) ? new FileSystemError(error, pathOfSystemError(error) ?? path) : error;
}

/** Runs a file operation on a path rxstore was given, turning a system error into a `FileSystemError` (naming `path` when the system names none). */
export async function onFileSystem<T>(operation: Promise<T>, path?: string): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    throw fileSystemErrorOf(error, path);
  }
}

/**
 * For a `.catch` on a file operation whose path may well not be there: undefined when it is not
 * (ENOENT, ENOTDIR for a parent that is a file, or ENAMETOOLONG: a name longer than the file system
 * takes, as a sidecar named after a long file name is, names nothing there); any other system error as
 * a `FileSystemError`, anything else as it is. `path` names the file when the system's error does not
 * (a read of a directory). A path the user typed is refused as too long before (src/fs/path-kind.ts).
 */
export function undefinedIfMissing(error: unknown, path?: string): undefined {
  if (isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'ENAMETOOLONG'))
    return undefined;
  throw fileSystemErrorOf(error, path);
}
