import { fstatSync, writeSync } from 'node:fs';
import { FileSystemError, ShortWriteError } from '../index.js';
import { errorLines } from './error-line.js';

/** Where the CLI writes; tests pass their own to capture what a user would see. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** The width of the terminal standard output is, or undefined when it is not a terminal (a pipe, a file). */
  readonly columns?: number | undefined;
}

/** Standard output's reader stopped early (`rxstore … | head`), or it failed: nothing more is written to it. */
let stdoutClosed = false;

/**
 * A reader that stops early is not an error, and does not decide the exit status: the command goes on to
 * its verdict (a damaged session is still exit 1), writing nothing more. Standard output that fails (a
 * full disk, `> /dev/full`, an I/O error) is: one coded line, `rxstore: RX_FILE_SYSTEM: standard output:
 * no space left on device`, and exit 1 at the end, whatever the command had decided. Standard error
 * that fails leaves nowhere to say it: exit 1 alone. Called once, before a command runs.
 */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', stdoutFailed);
  process.stderr.on('error', stderrFailedNow);
  stdoutFile = isFile(1);
  stderrFile = isFile(2);
}

function stdoutFailed(error: NodeJS.ErrnoException | ShortWriteError): void {
  if (stdoutClosed) return;
  stdoutClosed = true;
  if ('code' in error && error.code === 'EPIPE') return;
  if (stderrFailed === false)
    writeStderr(errorLines(error instanceof ShortWriteError ? error : new FileSystemError(error, 'standard output')));
  exitOneAtTheEnd();
}

function stderrFailedNow(): void {
  stderrFailed = true;
  exitOneAtTheEnd();
}

/**
 * Standard output or error redirected to a file is written by Node with one `write` a piece, whose short
 * count (a nearly full disk writes what fits and says so) it does not look at: the rest would be lost in
 * silence, the command exiting 0. Such a file is written here, every byte or the system's error.
 */
let stdoutFile = false;
let stderrFile = false;

function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    // Closed, or not there: Node's own stream says what becomes of a write.
    return false;
  }
}

/** Writes every byte of `text` to a file descriptor, or throws the system's error (a `ShortWriteError` when it writes nothing and says nothing). */
function writeAllSync(fd: number, text: string, name: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let done = 0; done < bytes.length; ) {
    const written = writeSync(fd, bytes, done, bytes.length - done);
    if (written === 0)
      throw new ShortWriteError(`${name}: wrote ${done} of ${bytes.length} bytes, and the system wrote no more`, {
        file: name,
        expected: bytes.length,
        found: done,
      });
    done += written;
  }
}

/** One write to standard output; false when the reader wants no more for now (a pipe's buffer is full). */
function writeOut(text: string): boolean {
  if (!stdoutFile) return process.stdout.write(text);
  try {
    writeAllSync(1, text, 'standard output');
  } catch (error) {
    stdoutFailed(error as NodeJS.ErrnoException);
  }
  return true;
}

function writeStderr(text: string): void {
  if (stderrFailed) return;
  if (!stderrFile) {
    process.stderr.write(text);
    return;
  }
  try {
    writeAllSync(2, text, 'standard error');
  } catch {
    stderrFailedNow();
  }
}

let stderrFailed = false;
let exitingOne = false;

/** The command may still set its exit code after the failure is known: the failure's 1 is set last. */
function exitOneAtTheEnd(): void {
  if (exitingOne) return;
  exitingOne = true;
  process.once('exit', () => {
    if (!process.exitCode) process.exitCode = 1;
  });
}

/**
 * Writes to standard output as fast as its reader takes it: resolves once the text is taken (or the
 * reader is gone), so that a large output is never held whole.
 */
export async function writeStdout(text: string): Promise<void> {
  if (stdoutClosed || writeOut(text)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      process.stdout.off('drain', done).off('error', done).off('close', done);
      resolve();
    };
    process.stdout.once('drain', done).once('error', done).once('close', done);
  });
}

/**
 * Prints pieces as they come, each on standard output only once its reader took the one before
 * (`writeStdout`): a command whose output is larger than memory should hold (a session's messages)
 * never holds it, however slowly its reader reads.
 */
export async function printPieces(pieces: AsyncIterable<string>, output: Output): Promise<void> {
  for await (const piece of pieces) {
    if (output !== processOutput) output.out(piece);
    else await writeStdout(piece);
  }
}

export const processOutput: Output = {
  out: (text) => {
    if (!stdoutClosed) writeOut(text);
  },
  err: writeStderr,
  get columns() {
    // A terminal that reports no width (0 columns) gets whole rows, as a pipe does.
    return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
  },
};
