import { holdsUnprintable, replaceUnprintable } from '../../text/printable.js';
import { pathsOf, type Platform } from './platform.js';
import type { PinnedRoots } from './roots.js';

/**
 * Commands rxstore suggests, in the platform's shell: POSIX `sh` off Windows, `cmd.exe` on it.
 * Each is one line a person can paste.
 */
export function quote(value: string, platform: Platform): string {
  if (platform === 'win32') return /^[\w\\:.\-]+$/.test(value) ? value : cmdQuoted(value);
  if (/^[\w/.,:@%+=-]+$/.test(value)) return value;
  // A character every printed line escapes (a line break, a C1 control, a line separator in a folder's name)
  // inside '…' would break the line or be shown as an escape the shell takes literally: $'…' spells it in
  // escapes of its UTF-8 bytes, as bash, zsh and POSIX sh (2024) read them.
  if (holdsUnprintable(value))
    return `$'${replaceUnprintable(
      value.replace(/[\\']/g, (char) => `\\${char}`),
      ansiEscape,
    )}'`;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const ANSI_SHORT: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/** A character as $'…' escapes: its short name, else each of its UTF-8 bytes as `\xNN`. */
function ansiEscape(char: string): string {
  return (
    ANSI_SHORT[char] ??
    [...Buffer.from(char, 'utf8')].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')
  );
}

/**
 * `reasonix --resume <query>`: an id, or a JSONL transcript path (docs/format.md §13.1), with the Reasonix
 * variables it needs to look where the session is set on it (the roots rxstore was pointed at).
 */
export function reasonixResume(query: string, platform: Platform, env: PinnedRoots = {}): string {
  return withEnv(env, `reasonix --resume ${quote(query, platform)}`, platform);
}

/** Runs `command` from `folder`: Reasonix picks the store by the working directory (docs/format.md §1.2). */
export function fromFolder(folder: string, command: string, platform: Platform): string {
  return `${platform === 'win32' ? 'cd /d' : 'cd'} ${quote(folder, platform)} && ${command}`;
}

/** Runs `command` with these variables set: `NAME=value command` in `sh`, `set "NAME=value" && command` in `cmd.exe`. */
export function withEnv(env: PinnedRoots, command: string, platform: Platform): string {
  const set = Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (platform === 'win32')
    return [...set.map(([name, value]) => `set ${cmdQuoted(`${name}=${value}`)}`), command].join(' && ');
  return [...set.map(([name, value]) => `${name}=${quote(value, platform)}`), command].join(' ');
}

/** Copies a directory into `intoDir` (created if missing), keeping its name; an existing folder of that name is merged into. */
export function copyInto(dir: string, intoDir: string, platform: Platform): string {
  const paths = pathsOf(platform);
  if (platform === 'win32')
    return `xcopy /E /I /Q /Y ${quote(dir, platform)} ${quote(paths.join(intoDir, paths.basename(dir)), platform)}`;
  return `mkdir -p ${quote(intoDir, platform)} && cp -R ${quote(dir, platform)} ${quote(`${intoDir}/`, platform)}`;
}

/**
 * `text` in double quotes for `cmd.exe`. Quotes keep spaces and `& | < > ( )` literal, but not `%`:
 * cmd expands `%NAME%` before it looks at quotes, inside them too. Text with a `%` (or a `"`) is
 * therefore quoted with carets instead: every quote and special character is escaped with `^`, so
 * each `%` is followed by a name holding a caret, which no variable has, and the caret is dropped
 * only after expansion; the program is then given the text between plain quotes.
 */
function cmdQuoted(text: string): string {
  if (!/[%"]/.test(text)) return `"${text}"`;
  return `^"${text.replace(/[%!^&|<>()"]/g, '^$&')}^"`;
}

/** How `shellCommand` runs a command: with Reasonix's variables set, from a folder. */
export interface ShellCommandOptions {
  /** Variables set for the command (the roots Reasonix is to look in). */
  env?: PinnedRoots;
  /** The folder to run it from (`cd <folder> && …`). */
  from?: string;
}

/**
 * A command a person can paste, in the platform's shell (POSIX `sh`, or `cmd.exe` on Windows):
 * `words` each quoted as they need, or a command already built; then `env` set for it, then run
 * `from` a folder. `shellCommand([path], platform)` is one path quoted.
 */
export function shellCommand(
  command: string | readonly string[],
  platform: Platform,
  options: ShellCommandOptions = {},
): string {
  const words = typeof command === 'string' ? command : command.map((word) => quote(word, platform)).join(' ');
  const withVariables = options.env ? withEnv(options.env, words, platform) : words;
  return options.from === undefined ? withVariables : fromFolder(options.from, withVariables, platform);
}
