import leven from 'leven';

/**
 * The commands a person can name, each with the commands of its own: what `rxstore <word>` and
 * `rxstore help <word>` accept.
 */
export type CommandWords = ReadonlyMap<string, readonly string[]>;

/** The words of the commands registered: each one's name (the first word of its yargs `command`) and its subcommands. */
export function commandWords(commands: readonly { command: string; subcommands?: readonly string[] }[]): CommandWords {
  return new Map(commands.map((each) => [each.command.split(' ')[0]!, each.subcommands ?? []]));
}

/**
 * The name among `names` a typo of `typed` most likely meant: the nearest, when it is near enough
 * to be one. Case is no distance: `INSPECT` and `--JSON` are typos of inspect and --json.
 */
export function closest(typed: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = leven(typed.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  // A third of the word or less, and never all of it: `lss` is ls, `frobnicate` is nothing.
  return best && best.distance <= Math.max(1, Math.floor(typed.length / 3)) && best.distance < typed.length
    ? best.name
    : undefined;
}

/** `unknown <what> <name>`, with the nearest known name when one is close. */
export function unknownName(what: string, shown: string, typed: string, names: readonly string[], prefix = ''): string {
  const near = closest(typed, names);
  return `unknown ${what} ${shown}${near ? `; did you mean ${prefix}${near}?` : ''}`;
}

/**
 * Why the command words a person typed (`migrate frob`, `inspct`) name no command, or undefined
 * when they do: only the words where a command is expected are judged (the first, and the second
 * of a command that has commands of its own); the rest are the command's arguments.
 */
export function unknownCommand(words: readonly string[], commands: CommandWords): string | undefined {
  const [first, second] = words;
  if (first === undefined) return undefined;
  const subcommands = commands.get(first);
  if (subcommands === undefined) return unknownName('command', shownWord(first), first, [...commands.keys()]);
  if (subcommands.length === 0 || second === undefined || subcommands.includes(second)) return undefined;
  return unknownName('command', `${first} ${shownWord(second)}`, second, subcommands, `${first} `);
}

/** A typed word as a message shows it: quoted when it is empty or holds blanks, which would otherwise not be seen. */
const shownWord = (word: string) => (word.trim() === '' || /\s/.test(word) ? JSON.stringify(word) : word);

/**
 * The words after a help topic (`help inspect extra`, `help migrate jsonl-to-v4 x`), which name
 * nothing: none when the topic itself is unknown, which `unknownCommand` says first.
 */
export function pastHelpTopic(words: readonly string[], commands: CommandWords): string[] {
  const [first, second] = words;
  const subcommands = first === undefined ? undefined : commands.get(first);
  if (subcommands === undefined) return [];
  if (subcommands.length === 0 || second === undefined) return words.slice(1);
  return subcommands.includes(second) ? words.slice(2) : [];
}

/** Words a command does not take, as yargs' own check of them says it (main.ts words it the same). */
export const unexpectedArguments = (words: readonly string[]) =>
  `unexpected argument${words.length === 1 ? '' : 's'} ${words.join(', ')}`;

/** What a command that was run without the argument it needs says, in the words its own check of an empty one uses. */
export const MISSING_ARGUMENT: Record<string, string> = {
  inspect: 'name a session: its id or the start of one, a session directory, or a .jsonl transcript (or several)',
  cat: 'name a session: its id or the start of one, a session directory, or a .jsonl transcript',
  export: 'name a session: its id or the start of one, a session directory, or a .jsonl transcript',
  repair: 'name a session: its id or the start of one, or its sessions-v4 directory',
  salvage: 'name a session: its id or the start of one, its sessions-v4 directory, or a .jsonl transcript',
  where: 'name a session id, or the start of one',
  relocate: 'name the old workspace folder and the new one',
};

/**
 * The words past what a command takes, read from the first line of its help (`rxstore where <id>`):
 * `words` are the command's words then its arguments; none when it takes any number of them, or
 * when the help is not a command's own.
 */
export function pastUsage(help: string, words: readonly string[]): string[] {
  const usage = (help.split('\n', 1)[0] ?? '').split(' ').slice(1);
  let named = 0;
  while (named < usage.length && named < words.length && usage[named] === words[named]) named += 1;
  if (named === 0) return [];
  const operands = usage.slice(named);
  if (operands.some((operand) => /\.\.[>\]]$/.test(operand))) return [];
  return words.slice(named + operands.length);
}

/** A path given where a session id is taken (`where`, `search --session`): said so, and where a path is taken instead. */
export const pathNotAnId = (taker: string, path: string) =>
  `${shownWord(path)} is a path; ${taker} takes a session id or the start of one (for the session at a path: rxstore inspect ${shownWord(path)})`;
