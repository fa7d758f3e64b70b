/** What yargs knows of a command's options that decides what value each takes. */
export interface OptionKinds {
  /** Every option's name (and its camel-case name, as yargs keeps both). */
  key: Record<string, unknown>;
  alias: Record<string, string[]>;
  boolean: string[];
}

/** What a boolean option may be given after `=`: yargs reads these two and nothing else as one. */
const BOOLEAN_VALUES = new Set(['true', 'false']);

/** A word that is an option, not a value: `-x`, `--name`; `-` (standard output) and `-1` are values. */
const isOption = (word: string) => word.startsWith('-') && word !== '-' && !/^-\d/.test(word);

/**
 * The first option of `argv` given a value it cannot take, in words, or undefined: an option that
 * takes a value given none (`--state-home` at the end, before another option, `--home=` or `--home ""`), or a
 * boolean given something other than true or false (`--json=maybe`, which yargs would take as
 * false). yargs lets the first through as an empty string (or says "name a session" when it takes
 * the positional's place) and the second as a silent answer; both are usage errors, said so.
 * Unknown options are left to the unknown-option check.
 */
export function optionValueProblem(argv: readonly string[], options: OptionKinds): string | undefined {
  const aliasesOf = (name: string) => [name, ...(options.alias[name] ?? [])];
  const booleans = new Set(options.boolean.flatMap(aliasesOf));
  const known = (name: string) =>
    name in options.key || Object.values(options.alias).some((names) => names.includes(name));
  for (let at = 0; at < argv.length; at += 1) {
    const word = argv[at]!;
    if (word === '--') break;
    if (!isOption(word)) continue;
    // `--name`, `--name=value`, and a short one given a value (`-h=x`).
    const dashes = word.startsWith('--') ? 2 : 1;
    const equals = word.indexOf('=');
    const name = word.slice(dashes, equals < 0 ? undefined : equals);
    const value = equals < 0 ? undefined : word.slice(equals + 1);
    if (dashes === 1 && (name.length !== 1 || value === undefined)) continue;
    const shown = `${'-'.repeat(dashes)}${name}`;
    const negated = name.startsWith('no-') && booleans.has(name.slice(3));
    if (booleans.has(name) || negated) {
      if (value === undefined) continue;
      if (negated) return `invalid value: ${shown} is ${JSON.stringify(value)}; it takes no value`;
      if (!BOOLEAN_VALUES.has(value))
        return `invalid value: ${shown} is ${JSON.stringify(value)}; it must be true or false (or no value)`;
      continue;
    }
    if (!known(name)) continue;
    // An empty word (`--home ""`) names nothing either: taken as given, it would be the current folder.
    if (
      value === undefined
        ? at + 1 >= argv.length || argv[at + 1] === '--' || argv[at + 1] === '' || isOption(argv[at + 1]!)
        : value === ''
    )
      return `${shown} needs a value`;
  }
  return undefined;
}
