/** The table every command's help ends with, and the README repeats. */
export const EXIT_CODES_HELP = [
  'Exit codes:',
  '  0  done; the session opens in Reasonix (a torn tail included)',
  '  1  the session or the operation was refused or failed (damaged, unsupported, locked, cannot write)',
  '  2  usage error, not a session, or nothing found (no such id, an ambiguous prefix, no sessions)',
].join('\n');

/** A command's help epilogue: what it needs saying, then the exit codes every command shares. */
export function epilogue(...notes: string[]): string {
  return [...notes, EXIT_CODES_HELP].join('\n\n');
}

/**
 * A command's examples, each as a shell comment saying what it does above the command, on lines of
 * their own (yargs lays out an example without a description so). Side by side, a long example
 * wrapped into the description's column and its end read as another example.
 */
export function examples(...pairs: [command: string, description: string][]): [string, string][] {
  return pairs.flatMap(([command, description], index): [string, string][] => [
    ...(index > 0 ? [['', ''] as [string, string]] : []),
    [`# ${description}`, ''],
    [command, ''],
  ]);
}
