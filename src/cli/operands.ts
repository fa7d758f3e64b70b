/** Stands in for a word after `--` that looks like an option, while yargs parses: `\uE000<n>\uE001`. */
const STAND_IN = /\uE000(\d+)\uE001/g;

/** The command line as yargs is to parse it, and how to put back in anything it gives what the person typed. */
export interface Operands {
  /** `argv` without its first `--`: the words after it are arguments, each in place of an option-like one a stand-in. */
  words: string[];
  /** `text` with every stand-in the word it stands for. */
  typed(text: string): string;
}

/**
 * `--` ends the options: every word after it is an argument (`inspect -- -odd.jsonl`), taken or
 * refused as one typed before it would be. yargs sets such words aside unread, so a command would
 * ignore them (`ls -- --home`) or miss them (`inspect -- x`): they are given to it as arguments
 * instead, a word that looks like an option under a stand-in it cannot take for one.
 */
export function operands(argv: readonly string[]): Operands {
  const end = argv.indexOf('--');
  if (end < 0) return { words: [...argv], typed: (text) => text };
  const after = argv.slice(end + 1);
  const words = [
    ...argv.slice(0, end),
    ...after.map((word, at) => (word.startsWith('-') ? `\uE000${at}\uE001` : word)),
  ];
  return { words, typed: (text) => text.replace(STAND_IN, (_, at: string) => after[Number(at)]!) };
}
