import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import type * as z from 'zod';
import { FileSystemError, isSystemError, TooLargeError } from '../../errors/index.js';
import { mayExist } from '../../fs/may-exist.js';
import { firstIssue } from '../../codec/first-issue.js';
import { goLiteralRefusal, type GoLiteralFields } from '../../codec/go-json/go-literals.js';
import { goSyntaxError, shownCharacter } from '../../codec/go-json/go-json-syntax.js';
import { parseGoJsonText } from '../../codec/go-json/go-text.js';

/**
 * A JSON file as read against its schema: missing, invalid (with why), its value, or unreadable —
 * the system would not let it be read (a permission, an I/O error), which says nothing of the file.
 */
export type JsonFileResult<T> =
  | { state: 'missing' }
  | { state: 'invalid'; reason: string }
  | { state: 'ok'; value: T; text: string }
  | { state: 'unreadable'; error: FileSystemError | TooLargeError };

/** A JSON file as read, or the system's error thrown: what the file holds is unknown, so it can be no verdict. */
export function readableOrThrow<T>(result: JsonFileResult<T>): Exclude<JsonFileResult<T>, { state: 'unreadable' }> {
  if (result.state === 'unreadable') throw result.error;
  return result;
}

/**
 * Far above any metadata file Reasonix writes; a larger one is not read into memory. Reasonix reads one
 * whole: padded with white space past this (which Go's decoder passes over), its JSON is read up to where
 * the padding starts; JSON itself longer than this is rxstore's bound (`RX_TOO_LARGE`), never a verdict.
 */
const MAX_JSON_FILE_BYTES = 16 * 1024 * 1024;
/** What is read of a longer file to find a fault in it: its start, a megabyte (a metadata file's JSON is a few hundred bytes). */
const HEAD_BYTES = 1024 * 1024;

/**
 * Reads and validates a JSON file from disk; never throws for a missing, malformed or unreadable file. Only a
 * regular file of sane size is read: a FIFO, a device or a huge file standing where metadata
 * belongs is reported as invalid, never waited on or read whole. The file is read synchronously:
 * a metadata file takes microseconds, while the promise API's four thread-pool round trips per
 * file were most of the time of listing two thousand sessions.
 */
export async function readJsonFile<S extends z.ZodType>(
  path: string,
  schema: S,
  literals?: GoLiteralFields,
  reading?: JsonFileReading,
): Promise<JsonFileResult<z.infer<S>>> {
  return readJsonFileSync(path, schema, literals, reading);
}

/** How a file is read where Reasonix reads it otherwise than its other JSON files (a transcript's meta). */
export interface JsonFileReading {
  /** One byte-order mark at the start is passed over, as Reasonix's reader of text files does. */
  skipByteOrderMark?: boolean;
  /** A file of nothing but white space and NUL bytes (a write torn before it began) counts as missing. */
  blankIsMissing?: boolean;
}

/** `readJsonFile` for a caller that must keep less of the file before another is read (a listing of every copy). */
export function readJsonFileSync<S extends z.ZodType>(
  path: string,
  schema: S,
  literals?: GoLiteralFields,
  reading: JsonFileReading = {},
): JsonFileResult<z.infer<S>> {
  // A missing file (a sessions-v4 session has no header.json) is told by a stat that makes no error:
  // a failed open makes one, and listing thousands of sessions made thousands.
  // Stryker disable next-line ConditionalExpression: speed only: the open then fails with ENOENT/ENOTDIR, which also answers missing
  if (!mayExist(path)) return { state: 'missing' };
  let text: string;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return { state: 'invalid', reason: 'not a regular file' };
      if (stats.size > MAX_JSON_FILE_BYTES) {
        const end = endBeforeTrailingSpace(fd, stats.size);
        if (end > MAX_JSON_FILE_BYTES) {
          // A fault within the bytes rxstore does read is the whole file's: Reasonix's decoder meets it there too.
          let start = readPrefix(fd, HEAD_BYTES);
          if (reading.skipByteOrderMark && start.startsWith('\ufeff')) start = start.slice(1);
          const blank = reading.blankIsMissing && /^[\0 \t\r\n]*$/.test(start);
          const fault = blank ? undefined : (syntaxFaultWithin(start) ?? textAfterValue(fd, start));
          if (fault) return { state: 'invalid', reason: `not JSON (${fault})` };
          return {
            state: 'unreadable',
            error: new TooLargeError(
              `${stats.size} bytes, more than rxstore reads of a metadata file into memory (${MAX_JSON_FILE_BYTES})`,
              { file: path, found: stats.size, expected: MAX_JSON_FILE_BYTES },
            ),
          };
        }
        text = readPrefix(fd, end);
      } else {
        // Stryker disable next-line StringLiteral: readFileSync gives a Buffer
        text = readFileSync(fd, 'utf8');
      }
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // A missing file is a fact about the store; a permission or an I/O error is the system's, never
    // damage (a file nobody may read is not an invalid one). Anything else is a fault and surfaces.
    // Stryker disable next-line ConditionalExpression: every error the try can throw is a system error (sizes are capped far below string limits)
    if (!isSystemError(error)) throw error;
    // A name longer than the file system takes (a sidecar named after a long transcript) names no file.
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'ENAMETOOLONG')
      return { state: 'missing' };
    return { state: 'unreadable', error: new FileSystemError(error, path) };
  }
  if (reading.skipByteOrderMark && text.startsWith('\ufeff')) text = text.slice(1);
  if (reading.blankIsMissing && /^[\0 \t\r\n]*$/.test(text)) return { state: 'missing' };
  // JSON.parse's own words for it show the invisible character itself.
  if (text.startsWith('\ufeff'))
    return { state: 'invalid', reason: "starts with a byte-order mark (U+FEFF), which Reasonix's JSON reader refuses" };
  let json: unknown;
  try {
    // As Go reads it: past 10,000 levels of nesting is refused, and the error quotes nothing of the file.
    json = parseGoJsonText(text);
  } catch (error) {
    return { state: 'invalid', reason: `not JSON (${goSyntaxError(text, error as Error).words})` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { state: 'invalid', reason: firstIssue(parsed.error) };
  // A Go struct's integer fields as written: `JSON.parse` keeps no trace of `3.0`, which Go refuses.
  const written = literals && goLiteralRefusal(text, literals);
  if (written) return { state: 'invalid', reason: written };
  return { state: 'ok', value: parsed.data, text };
}

/** JSON's white space (RFC 8259), which Go's decoder passes over after a value. */
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const SCAN_BYTES = 64 * 1024;

/** Where the file's bytes end once the white space at its end is left out: read back from the end, a block at a time. */
function endBeforeTrailingSpace(fd: number, size: number): number {
  const block = Buffer.alloc(SCAN_BYTES);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - SCAN_BYTES);
    const read = readSync(fd, block, 0, end - start, start);
    for (let at = read - 1; at >= 0; at -= 1) if (!JSON_SPACE.has(block[at]!)) return start + at + 1;
    end = start;
  }
  return 0;
}

/** The file's first `length` bytes, as text. */
function readPrefix(fd: number, length: number): string {
  const bytes = Buffer.alloc(length);
  return bytes.subarray(0, readSync(fd, bytes, 0, length, 0)).toString('utf8');
}

/**
 * The syntax fault in Go's words that the start of a longer JSON text already holds, if any: not the end
 * of the input (the text goes on), nor its last few characters (a character cut at the end of the start).
 */
function syntaxFaultWithin(start: string): string | undefined {
  try {
    parseGoJsonText(start);
    return undefined;
  } catch (error) {
    const { words, at } = goSyntaxError(start, error as Error);
    return at !== undefined && at < start.length - 4 && words !== 'unexpected end of JSON input' ? words : undefined;
  }
}

/**
 * The fault of a file whose first `HEAD_BYTES` (`start`) hold a whole JSON value, and which goes on past the
 * bound with more than white space: Go's decoder meets that character after the value. A number at the very
 * end of the start may go on past it, and is left to the bound.
 */
function textAfterValue(fd: number, start: string): string | undefined {
  let value: unknown;
  try {
    value = parseGoJsonText(start);
  } catch {
    return undefined;
  }
  if (typeof value === 'number' && !JSON_SPACE.has(start.charCodeAt(start.length - 1))) return undefined;
  const block = Buffer.alloc(SCAN_BYTES);
  for (let at = HEAD_BYTES; ; at += SCAN_BYTES) {
    const read = readSync(fd, block, 0, SCAN_BYTES, at);
    if (read === 0) return undefined;
    for (let index = 0; index < read; index += 1)
      if (!JSON_SPACE.has(block[index]!))
        return `invalid character ${shownCharacter(Array.from(block.subarray(index, index + 4).toString('utf8'))[0])} after top-level value`;
  }
}
