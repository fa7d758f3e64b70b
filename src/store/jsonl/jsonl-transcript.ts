import { createHash } from 'node:crypto';
import {
  EmptyTranscriptError,
  NotRegularFileError,
  onFileSystem,
  TooLargeError,
  TranscriptLineError,
} from '../../errors/index.js';
import { openRegularFile } from '../../fs/open-regular-file.js';
import { LenientMessageSchema } from '../../session/replay/strict-message.js';
import { goText, MAX_DEPTH, parseGoJsonText, parseJsonText } from '../../codec/go-json/go-text.js';
import { jsonValueEnd } from '../../codec/go-json/json-spans.js';
import { isJsonSpace } from '../../codec/go-json/json-strings.js';
import { goLiteralFieldsOf, goLiteralRefusalOfParsed } from '../../codec/go-json/go-literals.js';
import { goSyntaxError, shownCharacter } from '../../codec/go-json/go-json-syntax.js';
import { firstIssue } from '../../codec/first-issue.js';

/** A message's integer fields, which Go refuses written as `1.0` or `1e0`. */
const MESSAGE_LITERALS = goLiteralFieldsOf(LenientMessageSchema);

/**
 * Reasonix's migration writes each message again inside an event's payload, one level deeper, and
 * fails past Go's limit (measured with 1.38.11: "json: error calling MarshalJSON … exceeded max depth").
 */
const MESSAGE_MAX_DEPTH = MAX_DEPTH - 1;

/** One message of a JSONL transcript, decoded as Reasonix decodes it (its keys named as its fields are). */
export interface TranscriptLine {
  /** The 1-based line the message starts on. */
  line: number;
  value: Record<string, unknown>;
  /** The message's text as written: where Go keeps a field's text (a json.RawMessage), a migration writes it so. */
  text: string;
}

const VALUE_START = /[{["\-0-9tfn]/;

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string'
    ? 'a string'
    : typeof value === 'number'
      ? 'a number'
      : typeof value === 'boolean'
        ? 'a boolean'
        : 'a value';
}

/**
 * Reads a JSONL transcript as Reasonix 1.38.11's loader does (internal/agent, the migration
 * stream: one `json.Decoder` over the whole file, decoding provider messages one after another;
 * docs/format.md §11.1): values are separated by any JSON whitespace (blank lines and CRLF are fine, and a
 * message may span lines); unknown keys are dropped, keys match case-insensitively, `null` is an
 * empty message; anything else — a byte-order mark, a value that is not an object, a wrong type,
 * a last message cut mid-write — stops the loader, and Reasonix refuses the transcript. So does a
 * file of zero bytes. The messages before the first error are returned, with that one error.
 */
export function parseTranscript(
  text: string,
  file: string,
  from: { line: number; offset: number } = { line: 1, offset: 0 },
): { lines: TranscriptLine[]; errors: (EmptyTranscriptError | TranscriptLineError)[] } {
  const lines: TranscriptLine[] = [];
  if (text.length === 0 && from.offset === 0) {
    return {
      lines,
      errors: [
        new EmptyTranscriptError('empty transcript: Reasonix does not list it (no session matches)', {
          file,
          offset: 0,
        }),
      ],
    };
  }
  let line = from.line;
  let index = 0;
  /** The line a message starts on, as it reads, cut: a message about a line shows that line, never the next. */
  const lineText = () => {
    const start = text.lastIndexOf('\n', index - 1) + 1;
    const end = text.indexOf('\n', index);
    // Characters that show nothing (a byte-order mark, a zero-width space) are shown by their code.
    const whole = text
      .slice(start, end === -1 ? text.length : end)
      .replace(/\r$/, '')
      .replace(/\p{Cf}/gu, (char) => `\\u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    const shown = [...whole];
    return shown.length > 80 ? `${shown.slice(0, 80).join('')}…` : whole;
  };
  const fail = (message: string) => {
    const offset = from.offset + Buffer.byteLength(text.slice(0, index));
    return {
      lines,
      errors: [
        new TranscriptLineError(`line ${line}: ${message}; the line reads: ${lineText()}`, { file, line, offset }),
      ],
    };
  };
  /** A fault past the end of the message's first line: the line runs on into the next one before it closes. */
  const runsOn = (at: number | undefined) => {
    const lineEnd = text.indexOf('\n', index);
    if (at === undefined || lineEnd === -1 || index + at <= lineEnd) return '';
    const faultLine = line + [...text.slice(index, index + at)].filter((char) => char === '\n').length;
    return faultLine > line ? ` at line ${faultLine}: the message does not end on its line (cut mid-write?)` : '';
  };
  while (index < text.length) {
    const char = text[index]!;
    if (isJsonSpace(char.charCodeAt(0))) {
      if (char === '\n') line += 1;
      index += 1;
      continue;
    }
    if (char === '\uFEFF' && index === 0 && from.offset === 0)
      return fail('a byte-order mark (U+FEFF) at its start, which Reasonix does not read past');
    if (!VALUE_START.test(char))
      return fail(`invalid character ${shownCharacter(char)} looking for the beginning of a message`);
    const end = jsonValueEnd(text, index);
    if (end === undefined) {
      try {
        parseJsonText(text.slice(index));
      } catch (error) {
        const { words, at } = goSyntaxError(text.slice(index), error as Error);
        if (words !== 'unexpected end of JSON input') return fail(`not JSON (${words})${runsOn(at)}`);
      }
      return fail('the file ends inside a message (a line cut mid-write?)');
    }
    let value: unknown;
    try {
      value = parseGoJsonText(text.slice(index, end), MESSAGE_MAX_DEPTH);
    } catch (error) {
      const { words, at } = goSyntaxError(text.slice(index, end), error as Error);
      return fail(`not JSON (${words})${runsOn(at)}`);
    }
    if (value !== null && (typeof value !== 'object' || Array.isArray(value)))
      return fail(`${kindOf(value)} is not a message object`);
    const decoded = LenientMessageSchema.safeParse(value);
    if (!decoded.success) {
      return fail(`not a message: ${firstIssue(decoded.error, null)}`);
    }
    const written = goLiteralRefusalOfParsed(Buffer.from(text.slice(index, end)), value, MESSAGE_LITERALS);
    if (written) return fail(`not a message: ${written}`);
    lines.push({ line, value: decoded.data as Record<string, unknown>, text: text.slice(index, end) });
    for (let at = index; at < end; at += 1) if (text[at] === '\n') line += 1;
    index = end;
  }
  return { lines, errors: [] };
}

/**
 * The longest message rxstore reads from a transcript: far above any a model writes, and low enough
 * that a listing beside it stays within memory. A longer one is `RX_TOO_LARGE`, rxstore's bound.
 */
export const MAX_TRANSCRIPT_MESSAGE_BYTES = 64 * 1024 * 1024;

const READ_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a transcript file as `parseTranscript` reads its text, a run of whole messages at a time
 * (`transcriptRuns`): a regular file only (a FIFO or /dev/zero is refused before a byte is read), and
 * never more than one message (at most `maxMessageBytes`) and a chunk in memory beside the run given.
 */
export async function* transcriptFileRuns(
  file: string,
  maxMessageBytes = MAX_TRANSCRIPT_MESSAGE_BYTES,
  /** Where to stop: the end of what an earlier read of the file took (bytes appended since are not read). */
  end = Number.POSITIVE_INFINITY,
): AsyncGenerator<TranscriptRun> {
  const { handle } = await openRegularFile(
    file,
    () => new NotRegularFileError('not a regular file: a transcript is read from a file only', { file }),
  );
  try {
    yield* transcriptRuns(
      async (buffer, position) =>
        position >= end
          ? 0
          : (await onFileSystem(handle.read(buffer, 0, Math.min(buffer.length, end - position), position), file))
              .bytesRead,
      file,
      maxMessageBytes,
    );
  } finally {
    await handle.close();
  }
}

/** A run of a transcript's whole messages, as `parseTranscript` reads them, a digest of the bytes through its end, and that end's offset. */
export type TranscriptRun = ReturnType<typeof parseTranscript> & { through: string; end: number };

/** Fills `buffer` with the transcript's bytes from `position`; how many, 0 at its end. Called at positions one after another. */
export type ReadAt = (buffer: Buffer, position: number) => Promise<number>;

/**
 * The transcript as `parseTranscript` reads its text, one run of whole messages at a time, each given
 * up before the next is read (a run ends at a newline outside every string and bracket: where the
 * loader, reading the whole text, is between two values too): a caller that keeps none (a migration writing batches as it goes) holds
 * one message (at most `maxMessageBytes`) and a chunk, whatever the file's length. The run with an
 * error is the last.
 */
export async function* transcriptRuns(
  readAt: ReadAt,
  file: string,
  maxMessageBytes = MAX_TRANSCRIPT_MESSAGE_BYTES,
): AsyncGenerator<TranscriptRun> {
  const digest = createHash('sha256');
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let from = { line: 1, offset: 0 };
  // The scan's state at the end of what is pending: inside a string, after a backslash, nesting depth.
  let inString = false;
  let escaped = false;
  let depth = 0;
  const parsePending = (upTo: number) => {
    const bytes = Buffer.concat(pending, pendingBytes);
    const run = bytes.subarray(0, upTo);
    digest.update(run);
    const parsed = {
      ...parseTranscript(goText(run), file, from),
      through: digest.copy().digest('hex'),
      end: from.offset + run.length,
    };
    let newlines = 0;
    for (let at = run.indexOf(NEWLINE); at >= 0; at = run.indexOf(NEWLINE, at + 1)) newlines += 1;
    from = { line: from.line + newlines, offset: from.offset + run.length };
    pending = upTo < bytes.length ? [bytes.subarray(upTo)] : [];
    pendingBytes = bytes.length - upTo;
    return parsed;
  };
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  for (;;) {
    const bytesRead = await readAt(buffer, from.offset + pendingBytes);
    if (bytesRead === 0) break;
    const chunk = Buffer.from(buffer.subarray(0, bytesRead));
    let boundary = -1;
    for (let at = 0; at < chunk.length; at += 1) {
      const byte = chunk[at]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === 0x5c) escaped = true;
        else if (byte === 0x22) inString = false;
      } else if (byte === 0x22) inString = true;
      else if (byte === 0x7b || byte === 0x5b) depth += 1;
      else if (byte === 0x7d || byte === 0x5d) depth -= 1;
      else if (byte === NEWLINE && depth <= 0) boundary = at;
    }
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (boundary >= 0) {
      const parsed = parsePending(pendingBytes - chunk.length + boundary + 1);
      yield parsed;
      if (parsed.errors.length > 0) return;
    }
    if (pendingBytes > maxMessageBytes) {
      throw new TooLargeError(
        `line ${from.line}: a message of more than ${maxMessageBytes} bytes, more than rxstore reads into memory`,
        { file, line: from.line, offset: from.offset, expected: maxMessageBytes },
      );
    }
  }
  yield parsePending(pendingBytes);
}
