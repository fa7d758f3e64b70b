import { basename, dirname, join } from 'node:path';

/** What the system errors a person meets mean, in words (as `strerror` says them). */
const WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'already exists',
  ENOTEMPTY: 'directory not empty',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'a name longer than the file system takes',
  EBUSY: 'device or resource busy',
  EXDEV: 'cannot move across file systems',
  EIO: 'input/output error',
  EINVAL: 'invalid argument',
  EAGAIN: 'resource temporarily unavailable',
  ETXTBSY: 'text file busy',
};

/** A temporary name `writeFileAtomic` uses beside a file: `.atomic-<name>-<12 hex>.tmp`. */
const ATOMIC_TEMP = /^\.atomic-(.+)-[0-9a-f]{12}\.tmp$/;

/** The file a temporary path stands for: a person is told about the file they asked for, never the temp name. */
export function destinationOf(path: string): string {
  const match = ATOMIC_TEMP.exec(basename(path));
  return match ? join(dirname(path), match[1]!) : path;
}

/** Errors of a link, rename or copy that are about the name it was to make, not the one it started from. */
const NEW_NAME_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EEXIST', 'ENOTEMPTY', 'EMLINK']);

/**
 * The path a system error is about. Node names a link's, rename's or copy's source (`path`) and its
 * new name (`dest`): no room for the new name, or the name taken, is said of the new name.
 */
export function pathOfSystemError(error: NodeJS.ErrnoException): string | undefined {
  const dest = (error as NodeJS.ErrnoException & { dest?: unknown }).dest;
  return typeof dest === 'string' && NEW_NAME_ERRORS.has(error.code ?? '') ? dest : error.path;
}

/** A Node system error (one with an errno `code`). */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z]+$/.test((error as NodeJS.ErrnoException).code!)
  );
}

/**
 * A system error as a person reads it, `<path>: <words>`: the errno code in words, the path it
 * happened at (a temporary name replaced by its file), no syscall or raw code. Anything else: its message.
 */
export function describeSystemError(error: unknown): string {
  if (!isSystemError(error)) return error instanceof Error ? error.message : String(error);
  const words = systemErrorInWords(error);
  return error.path ? `${destinationOf(error.path)}: ${words}` : words;
}

/** What a system error says, in words, without the path it names (for a message that names it already). */
export function systemErrorInWords(error: NodeJS.ErrnoException): string {
  return WORDS[error.code!] ?? error.message.replace(/^E[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
}
