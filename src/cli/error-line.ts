import { AmbiguousSessionError, destinationOf, fileSystemErrorOf, RxError, UsageError } from '../errors/index.js';
import { printable } from './printable.js';

/** Temporary names a writer uses beside a file, wherever they appear in a message. */
const TEMP_NAME = /[^\s'"`]*\.atomic-[^\s'"`]+-[0-9a-f]{12}\.tmp/g;

/** An RxError's message with where it happened, the path said once. */
function describeRxError(error: RxError): string {
  const { file, offset, line } = error.data;
  if (file === undefined || !error.message.includes(file)) return error.describe();
  const at = offset !== undefined ? ` at offset ${offset}` : line !== undefined && !error.message.includes(`line ${line}`) ? ` at line ${line}` : '';
  return at && error.message.startsWith(`${file}: `) ? `${file}${at}: ${error.message.slice(file.length + 2)}` : error.message;
}

/**
 * What a person sees when a command fails: one line, `rxstore: <CODE>: <what, where>`, with the
 * path once, system errors in words, no temporary file names and no control characters; an
 * ambiguous session query adds one line per candidate.
 */
export function errorLines(thrown: unknown): string {
  const error = fileSystemErrorOf(thrown);
  let text: string;
  // A usage error names no file: its code, then what was wrong with the command line.
  if (error instanceof UsageError) text = `${error.code}: ${error.message}`;
  else if (error instanceof RxError) text = `${error.code}: ${describeRxError(error)}`;
  else text = error instanceof Error ? error.message : String(error);
  const lines = [`rxstore: ${printable(text.replace(TEMP_NAME, (name) => destinationOf(name)))}`];
  if (error instanceof AmbiguousSessionError) {
    for (const candidate of error.candidates) lines.push(`  ${printable(candidate.id)}  ${candidate.store}  ${printable(candidate.path)}`);
  }
  return `${lines.join('\n')}\n`;
}
