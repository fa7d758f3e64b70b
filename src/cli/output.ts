import { FileSystemError } from '../index.js';
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
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    stdoutClosed = true;
    if (error.code === 'EPIPE') return;
    if (stderrFailed === false) process.stderr.write(errorLines(new FileSystemError(error, 'standard output')));
    exitOneAtTheEnd();
  });
  process.stderr.on('error', () => {
    stderrFailed = true;
    exitOneAtTheEnd();
  });
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
  if (stdoutClosed || process.stdout.write(text)) return;
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
    if (!stdoutClosed) process.stdout.write(text);
  },
  err: (text) => process.stderr.write(text),
  get columns() {
    // A terminal that reports no width (0 columns) gets whole rows, as a pipe does.
    return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
  },
};
