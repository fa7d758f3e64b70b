import { printable, AmbiguousSessionError, FileSystemError, RxError, UsageError } from '../index.js';

/** Temporary names a writer uses beside a file, wherever they appear in a message. */
const TEMP_NAME = /[^\s'"`]*\.atomic-[^\s'"`]+-[0-9a-f]{12}\.tmp/g;

/**
 * No line of an error is longer: a 5,000-character id typed by mistake is not echoed whole. Room for a few
 * whole paths and the advice after them: at 400, a line naming two paths of a deep session folder (100 to 200
 * characters each) had each cut to 60 characters, and lost its advice.
 */
const LONGEST_LINE = 2500;
/** A word longer is cut, but for a path (it holds a separator), which is cut past `LONGEST_PATH`. */
const LONGEST_WORD = 200;
const LONGEST_PATH = 1000;

/**
 * A word (an id, what was typed) over `LONGEST_WORD` characters, or a path over `LONGEST_PATH`, cut to its
 * start with its length; the line then over LONGEST_LINE anyway (many long words) cut harder, then at its end.
 */
export function cutLongWords(line: string): string {
  const cut = (longestWord: number, longestPath: number) =>
    line.replace(new RegExp(`[^\\s"'\`]{${longestWord + 1},}`, 'g'), (run) => {
      // The punctuation that follows a path (`<path>: …`) is the message's, not the word's.
      const [, word, after] = /^(.*?)([:;,.)]*)$/s.exec(run)!;
      if (/[/\\]/.test(word!) && word!.length <= longestPath) return run;
      return `${word!.slice(0, 60)}… (${word!.length.toLocaleString('en-US')} characters)${after}`;
    });
  const kept = [cut(LONGEST_WORD, LONGEST_PATH), cut(80, 80)].find((each) => each.length <= LONGEST_LINE);
  return kept ?? `${cut(80, 80).slice(0, LONGEST_LINE - 1)}…`;
}

/** An RxError's message with where it happened, the path said once. */
function describeRxError(error: RxError): string {
  const { file, offset, line } = error.data;
  if (file === undefined || !error.message.includes(file)) return error.describe();
  const at =
    offset !== undefined
      ? ` at offset ${offset}`
      : line !== undefined && !error.message.includes(`line ${line}`)
        ? ` at line ${line}`
        : '';
  return at && error.message.startsWith(`${file}: `)
    ? `${file}${at}: ${error.message.slice(file.length + 2)}`
    : error.message;
}

/** A warning as every command prints it: one line, text from data escaped, long words cut. */
export function warningLine(text: string): string {
  return `${cutLongWords(`rxstore: warning: ${printable(text)}`)}\n`;
}

/**
 * What a person sees when a command fails: one line, `rxstore: <CODE>: <what, where>`, with the
 * path once, system errors in words, no temporary file names and no control characters; an
 * ambiguous session query adds one line per candidate.
 */
export function errorLines(thrown: unknown): string {
  const error = FileSystemError.from(thrown);
  let text: string;
  // A usage error names no file: its code, then what was wrong with the command line.
  if (error instanceof UsageError) text = `${error.code}: ${error.message}`;
  else if (error instanceof RxError) text = `${error.code}: ${describeRxError(error)}`;
  else text = error instanceof Error ? error.message : String(error);
  const lines = [`rxstore: ${printable(text.replace(TEMP_NAME, (name) => FileSystemError.destinationOf(name)))}`];
  if (error instanceof AmbiguousSessionError) {
    for (const candidate of error.candidates)
      lines.push(`  ${printable(candidate.id)}  ${candidate.store}  ${printable(candidate.path)}`);
  }
  return `${lines.map(cutLongWords).join('\n')}\n`;
}
