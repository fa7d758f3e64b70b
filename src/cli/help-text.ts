import stringWidth from 'string-width';

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

/** The epilogue of a command whose exit codes are its own (`search` exits as grep does): its table instead of the shared one. */
export function epilogueWithExitCodes(exitCodes: readonly string[], ...notes: string[]): string {
  return [...notes, ['Exit codes:', ...exitCodes.map((line) => `  ${line}`)].join('\n')].join('\n\n');
}

/** The width help is laid out in (yargs' wrap): main sets it before any command's help is built. */
let helpColumns = 100;

/** Sets the width help is laid out in, and returns it for yargs' own wrap. */
export function layHelpOut(columns: number | undefined): number {
  helpColumns = Math.min(100, columns ?? 100);
  return helpColumns;
}

/** yargs indents an example by two cells and keeps two free at the end. */
const EXAMPLE_PADDING = 4;

/**
 * A command's examples, each as a shell comment saying what it does above the command, on lines of
 * their own (yargs lays out an example without a description so). Each is wrapped here to the
 * width help is laid out in, as yargs would not: the comment's every line starts with `#`, and a
 * command is broken only between words, each line but the last ending with ` \`, so that it still
 * pastes as one command. A word is never broken (the examples' longest fit 40 columns).
 */
export function examples(...pairs: [command: string, description: string][]): [string, string][] {
  const width = helpColumns - EXAMPLE_PADDING;
  return pairs.flatMap(([command, description], index): [string, string][] => [
    ...(index > 0 ? [['', ''] as [string, string]] : []),
    [
      fill(description.split(' '), width - 2)
        .map((line) => `# ${line}`)
        .join('\n'),
      '',
    ],
    // yargs would put its script name for `$0` after this: the width is counted with it.
    [fill(shellWords(command.replaceAll('$0', 'rxstore')), width - 2).join(' \\\n'), ''],
  ]);
}

/** Words into lines of at most `width` cells; a word longer than that is a line of its own. */
function fill(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.at(-1);
    if (last !== undefined && stringWidth(last) + 1 + stringWidth(word) <= width)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A command's words, a quoted one (with its spaces) kept whole: a line may end only between them. */
function shellWords(command: string): string[] {
  return command.match(/(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+/g) ?? [];
}

/**
 * `options` with what only help shows (examples, an epilogue) added when help is asked for: yargs lays out a
 * command's whole help each time it runs it (for a failure it could show; ours never does), and the examples and
 * notes are most of that work. yargs passes the builder whether --help or --version was given; its types leave
 * that out.
 */
export function withHelp<T>(helping: boolean | undefined, options: T, addHelp: (options: T) => T): T {
  return helping ? addHelp(options) : options;
}
