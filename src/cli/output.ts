/** Where the CLI writes; tests pass their own to capture what a user would see. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** The width of the terminal standard output is, or undefined when it is not a terminal (a pipe, a file). */
  readonly columns?: number | undefined;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  get columns() {
    // A terminal that reports no width (0 columns) gets whole rows, as a pipe does.
    return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined;
  },
};
