/** Where the CLI writes; tests pass their own to capture what a user would see. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** The width of the terminal standard output is, or undefined when it is not a terminal (a pipe, a file). */
  readonly columns?: number | undefined;
}

/** Standard output's reader stopped early (`rxstore … | head`): nothing more is written to it. */
let stdoutClosed = false;

/**
 * A reader that stops early is not an error, and does not decide the exit status: the command goes on to
 * its verdict (a damaged session is still exit 1), writing nothing more. Called once, before a command runs.
 */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
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
