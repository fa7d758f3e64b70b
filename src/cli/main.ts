import { FileSystemError, UsageError } from '../index.js';
import yargs, { type Argv } from 'yargs';
import { errorLines } from './error-line.js';
import { EXIT, exitCodeOf, type ExitCode } from './exit-codes.js';
import { epilogue, examples, layHelpOut } from './help-text.js';
import { processOutput, type Output } from './output.js';
import { rxstoreVersion } from './version.js';
import { optionValueProblem, type OptionKinds } from './option-values.js';
import { operands } from './operands.js';
import {
  commandWords,
  MISSING_ARGUMENT,
  pastHelpTopic,
  pastUsage,
  unexpectedArguments,
  unknownCommand,
  unknownName,
  type CommandWords,
} from './usage-words.js';
import { allCommands, type CommandDefinition } from './commands/all-commands.js';

/** The command that prints a shell completion script (yargs' own), and what it does: in the list of commands and as its help. */
const COMPLETION = 'completion';
const COMPLETION_DOES = 'Print a bash/zsh completion script: rxstore completion >> ~/.bashrc';

/** yargs' validation messages, said the way the rest of rxstore speaks. */
const YARGS_STRINGS = {
  'Unknown argument: %s': { one: 'unexpected argument %s', other: 'unexpected arguments %s' },
  'Unknown command: %s': { one: 'unknown command: %s', other: 'unknown commands: %s' },
  'Not enough non-option arguments: got %s, need at least %s': {
    one: 'missing an argument (got %s, need at least %s)',
    other: 'missing an argument (got %s, need at least %s)',
  },
  'Too many non-option arguments: got %s, maximum of %s': {
    one: 'too many arguments (got %s, at most %s)',
    other: 'too many arguments (got %s, at most %s)',
  },
  'Missing required argument: %s': { one: 'missing required option --%s', other: 'missing required options: %s' },
  'Invalid values:': 'invalid value:',
  'Argument: %s, Given: %s, Choices: %s': '--%s is %s; it must be one of %s',
  'Not enough arguments following: %s': '--%s needs a value',
};

/** What yargs knows of the options of the command being parsed: `getOptions` is its own, which its types leave out. */
function optionsOf(parser: Argv): OptionKinds & { string: string[]; number: string[]; array: string[] } {
  return (parser as unknown as { getOptions(): ReturnType<typeof optionsOf> }).getOptions();
}

/** The command a person ran (two words for one of a command's own, `migrate jsonl-to-v4`), to point them at its help. */
function commandOf(argv: readonly string[], commands: CommandWords): string | undefined {
  const [first, second] = argv.filter((arg) => !arg.startsWith('-'));
  const subcommands = first === undefined ? undefined : commands.get(first);
  if (subcommands === undefined) return undefined;
  // `rxstore help ls extra` is pointed at the help of ls, as `rxstore ls --help extra` is.
  if (first === 'help' && second !== undefined && commands.has(second))
    return commandOf(argv.filter((arg) => !arg.startsWith('-')).slice(1), commands);
  return second !== undefined && subcommands.includes(second) ? `${first} ${second}` : first;
}

/** How many of the words name the command: none, one, or two for `migrate jsonl-to-v4`. */
const commandWordCount = (words: readonly string[], commands: CommandWords) =>
  commandOf(words, commands)?.split(' ').length ?? 0;

const camel = (name: string) => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The options typed that the command does not have, as typed. yargs checks the number of
 * positionals before unknown options, and an unknown option takes the next word as its value
 * (`inspect --jsn 15350df4`): without this the person would hear "missing an argument".
 */
function unknownOptions(argv: readonly string[], known: ReadonlySet<string>): string[] {
  const unknown: string[] = [];
  for (const arg of argv) {
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) continue;
    const name = arg.replace(/^--?/, '').split('=')[0]!;
    const names = arg.startsWith('--') ? [name, name.replace(/^no-/, '')] : [...name];
    if (
      !names.every((each) => known.has(each) || known.has(camel(each))) &&
      !names.slice(1).some((each) => known.has(each))
    )
      unknown.push(arg.split('=')[0]!);
  }
  return unknown;
}

/**
 * The first word of one dash (`-x`, `-dash`, `-aardvark`) holding a letter that is no option, said with where
 * such a word goes; undefined when there is none. yargs reads each letter as a short option, so without this
 * `-dash` would ask for help (`-h`) and `-aardvark` for the version (`-v`), running nothing.
 */
function unknownDashWordSaid(argv: readonly string[], known: ReadonlySet<string>, command: string | undefined) {
  for (const arg of argv) {
    if (arg === '--') break;
    const letters = /^-([^-\d=][^=]*)/.exec(arg)?.[1];
    if (letters === undefined || [...letters].every((letter) => known.has(letter))) continue;
    return command === undefined
      ? `unknown option -${letters}`
      : `unknown option -${letters}: a word that starts with - goes after --, as in rxstore ${command} -- -${letters}`;
  }
  return undefined;
}

/** Options typed that the command does not have, said with a "did you mean" where one is close. */
function unknownOptionsSaid(unknown: readonly string[], known: ReadonlySet<string>): string {
  if (unknown.length > 1) return `unknown options ${unknown.join(', ')}`;
  const names = [...known].filter((name) => name.length > 1 && !/[A-Z]/.test(name)).map((name) => `--${name}`);
  return unknownName('option', unknown[0]!, unknown[0]!, names);
}

/** A yargs validation message as rxstore says it, in one line; a missing argument in the words of the command's own check. */
function said(message: string, argv: readonly string[], commands: CommandWords): string {
  const command = commandOf(argv, commands);
  if (message.startsWith('missing an argument') && command && MISSING_ARGUMENT[command])
    return MISSING_ARGUMENT[command];
  return message.replace(/\n\s*/g, ' ');
}

/** The words of a command line that are not options: where a command is named, at the top (no option there takes a value). */
const wordsOf = (words: readonly string[]) => words.filter((arg) => !arg.startsWith('-'));

// For bin/rxstore.js, which installs it before a command runs.
export { endQuietlyOnClosedPipe } from './output.js';
export { setLogWorkers } from '../index.js';

/**
 * Runs the rxstore CLI with `argv` (without node and script) and returns the exit code (see
 * `exit-codes.ts`: 0 done, 1 refused or failed, 2 usage, not a session or nothing found).
 * Errors are printed as one line, never a stack.
 */
export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  let exitCode: ExitCode = EXIT.done;
  const setExit = (code: ExitCode) => {
    exitCode = code;
  };
  let helpFor: string[] | undefined;
  let printed: string | undefined;
  // Before any help is built: the examples are laid out for the terminal's width.
  const helpColumns = layHelpOut(output.columns);
  // `rxstore help <command>`: the command's own --help.
  const help: CommandDefinition = {
    command: 'help [command..]',
    describe: "Show a command's help: rxstore help <command>",
    builder: (sub: Argv) => sub.positional('command', { type: 'string', array: true, describe: 'the command' }),
    handler: (args: { command?: string[] | undefined }) => {
      // `help inspect extra`: the topic is inspect, and `extra` is an argument nothing takes.
      const extra = pastHelpTopic(args.command ?? [], commands);
      if (extra.length > 0) throw new UsageError(unexpectedArguments(extra));
      helpFor = args.command ?? [];
    },
  };
  const definitions = [...allCommands(output, setExit), help];
  // The words a person may type where a command is named: every command registered, and yargs' completion.
  const commands = commandWords([...definitions, { command: COMPLETION }]);
  // What yargs parses: the words after `--` are arguments like any other (the checks of options read `argv`, which stops there).
  const { words, typed } = operands(argv);
  // yargs prints the script itself for `completion --help`: the person asked what the command does.
  if (wordsOf(words)[0] === COMPLETION && words.some((word) => word === '--help' || word === '-h')) {
    output.out(`rxstore completion\n\n${COMPLETION_DOES}\n`);
    return EXIT.done;
  }
  try {
    const parser = yargs(words);
    for (const definition of definitions) parser.command(definition);
    // Every option name and alias of the command parsed (asked once yargs has parsed it).
    const knownOptions = () => {
      const options = optionsOf(parser);
      return new Set<string>([...Object.keys(options.key), ...Object.values(options.alias).flat()]);
    };
    await parser
      .scriptName('rxstore')
      .usage(
        '$0 <command> [options]\n\nRead, verify, project and write the session stores of the Reasonix coding agent.',
      )
      // yargs' own strings take plural forms, which its types do not describe.
      .updateStrings(YARGS_STRINGS as unknown as Record<string, string>)
      .completion(COMPLETION, COMPLETION_DOES)
      .example(
        examples(
          ['$0 ls', 'every session on this machine, newest first'],
          ['$0 inspect 15350df4', 'verify a session named by (the start of) its id'],
          ['$0 help inspect', "a command's options, examples and exit codes"],
        ),
      )
      .epilogue(
        epilogue(
          'A session can be named by its id or the start of one wherever a command takes one; --home, --state-home and the environment say where to look.',
        ),
      )
      .demandCommand(1, 'name a command')
      .strict()
      .help()
      .alias('help', 'h')
      .version(rxstoreVersion())
      .alias('version', 'v')
      .wrap(helpColumns)
      .exitProcess(false)
      // An option of one value given twice: the last one counts, as on most command lines (yargs makes a list).
      .middleware((args) => {
        // A word typed after `--` is given to the command as typed.
        for (const [key, value] of Object.entries(args))
          if (typeof value === 'string') args[key] = typed(value);
          else if (Array.isArray(value))
            args[key] = value.map((each) => (typeof each === 'string' ? typed(each) : each));
        const options = optionsOf(parser);
        // An option given a value it cannot take (none, or `--json=maybe`) yargs would let through.
        const badValue = optionValueProblem(argv, options);
        if (badValue) throw new UsageError(badValue);
        // yargs keeps each option under its name and its camel-case name (`state-home`, `stateHome`).
        const withCamel = (keys: string[]) =>
          new Set(keys.flatMap((key) => [key, key.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())]));
        const lists = withCamel(options.array);
        for (const key of withCamel([...options.string, ...options.number])) {
          const value: unknown = args[key];
          if (!lists.has(key) && Array.isArray(value)) args[key] = value.at(-1);
        }
      }, true)
      .fail((message, error) => {
        // yargs' own parse errors (an option without its value) are usage errors too; a command's own error goes on up.
        if (error && error.name !== 'YError') throw error;
        // An option that took no value may have left the command short of its positional: the option is what is wrong.
        const badValue =
          error || unknownCommand(wordsOf(words), commands) ? undefined : optionValueProblem(argv, optionsOf(parser));
        if (badValue) throw new UsageError(badValue);
        if (error) throw new UsageError(said(error.message, words, commands));
        // A command that does not exist is said before its options: they are not known because it is not.
        const notACommand = unknownCommand(wordsOf(words), commands);
        if (notACommand) throw new UsageError(notACommand);
        const known = knownOptions();
        // `rxstore search -ab` is said as `-dash` is, which yargs never fails on.
        const dashWord = unknownDashWordSaid(argv, known, commandOf(words, commands));
        if (dashWord) throw new UsageError(dashWord);
        const unknown = unknownOptions(argv, known);
        throw new UsageError(unknown.length > 0 ? unknownOptionsSaid(unknown, known) : said(message, words, commands));
      })
      // Help, version and completion text come back here rather than being printed by yargs: they go where output goes.
      .parseAsync(words, {}, (_error, args, text) => {
        // `rxstore frob --help` is a usage error, as `rxstore frob` is: yargs would print the whole help.
        const notACommand = text && args.help === true ? unknownCommand(args._.map(String), commands) : undefined;
        if (notACommand) throw new UsageError(notACommand);
        // `rxstore search -dash` asks for neither help nor the version (`-aardvark`): said before what they would refuse.
        const dashWord = text ? unknownDashWordSaid(argv, knownOptions(), commandOf(words, commands)) : undefined;
        if (dashWord) throw new UsageError(dashWord);
        // `rxstore -v extra`: the version takes no argument; only the command it was asked beside is not one.
        const besideVersion =
          text && args.version === true ? args._.map(String).slice(commandWordCount(words, commands)) : [];
        if (besideVersion.length > 0) throw new UsageError(unexpectedArguments(besideVersion));
        // `rxstore ls --help extra` is refused as `rxstore ls extra` is: help does not excuse a word nothing takes.
        const pastHelp = text && args.help === true ? pastUsage(text, args._.map(String)) : [];
        if (pastHelp.length > 0) throw new UsageError(unexpectedArguments(pastHelp));
        printed = text;
      });
  } catch (error) {
    if (error instanceof UsageError) error.message = typed(error.message);
    if (error instanceof UsageError && !error.message.includes('--help')) {
      const command = commandOf(words, commands);
      error.message = `${error.message.endsWith('?') ? error.message : `${error.message.replace(/\.$/, '')};`} see ${command ? `rxstore ${command} --help` : 'rxstore --help'}`;
    }
    // A system error that escaped a boundary is still told as the coded error it is.
    const coded = FileSystemError.from(error);
    output.err(errorLines(coded));
    return exitCodeOf(coded);
  }
  // `rxstore help frob` is `rxstore frob --help`: the same usage error as `rxstore frob`.
  if (helpFor !== undefined) return main([...helpFor.filter((word) => word !== 'help'), '--help'], output);
  if (printed) output.out(printed.endsWith('\n') ? printed : `${printed}\n`);
  return exitCode;
}
