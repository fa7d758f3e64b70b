import { readFile } from 'node:fs/promises';
import { EmptyTranscriptError, TranscriptLineError } from '../../errors/index.js';
import { LenientMessageSchema } from '../../session/replay/strict-message.js';
import { goText, MAX_DEPTH, parseGoJsonText } from '../../codec/go-text.js';
import { wholeNumberFieldsOf, wholeNumberRefusalOfDecoded } from '../../codec/go-number-literals.js';
import { goSyntaxError, shownCharacter } from '../../codec/go-json-syntax.js';

/** A message's integer fields, which Go refuses written as `1.0` or `1e0`. */
const MESSAGE_WHOLE_NUMBERS = wholeNumberFieldsOf(LenientMessageSchema);

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
}

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const VALUE_START = /[{["\-0-9tfn]/;
const LITERAL = /[A-Za-z0-9+\-.]/;

/** Where the JSON value starting at `start` ends, or undefined when the text ends first. */
function valueEnd(text: string, start: number): number | undefined {
  const first = text[start]!;
  if (first !== '{' && first !== '[' && first !== '"') {
    let end = start;
    while (end < text.length && LITERAL.test(text[end]!)) end += 1;
    return end;
  }
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') {
        inString = false;
        if (depth === 0) return index + 1;
      }
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'a boolean' : 'a value';
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
export function parseTranscript(text: string, file: string): { lines: TranscriptLine[]; errors: (EmptyTranscriptError | TranscriptLineError)[] } {
  const lines: TranscriptLine[] = [];
  if (text.length === 0) {
    return { lines, errors: [new EmptyTranscriptError('empty transcript: Reasonix does not list it (no session matches)', { file, offset: 0 })] };
  }
  let line = 1;
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
    const offset = Buffer.byteLength(text.slice(0, index));
    return { lines, errors: [new TranscriptLineError(`line ${line}: ${message}; the line reads: ${lineText()}`, { file, line, offset })] };
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
    if (WHITESPACE.has(char)) {
      if (char === '\n') line += 1;
      index += 1;
      continue;
    }
    if (char === '\uFEFF' && index === 0) return fail('a byte-order mark (U+FEFF) at its start, which Reasonix does not read past');
    if (!VALUE_START.test(char)) return fail(`invalid character ${shownCharacter(char)} looking for the beginning of a message`);
    const end = valueEnd(text, index);
    if (end === undefined) {
      try {
        JSON.parse(text.slice(index));
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
    if (value !== null && (typeof value !== 'object' || Array.isArray(value))) return fail(`${kindOf(value)} is not a message object`);
    const decoded = LenientMessageSchema.safeParse(value);
    if (!decoded.success) {
      const issue = decoded.error.issues[0];
      return fail(`not a message: ${issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : 'invalid'}`);
    }
    const written = wholeNumberRefusalOfDecoded(Buffer.from(text.slice(index, end)), decoded.data, MESSAGE_WHOLE_NUMBERS);
    if (written) return fail(`not a message: ${written}`);
    lines.push({ line, value: decoded.data as Record<string, unknown> });
    for (let at = index; at < end; at += 1) if (text[at] === '\n') line += 1;
    index = end;
  }
  return { lines, errors: [] };
}

export async function readTranscript(file: string) {
  return parseTranscript(goText(await readFile(file)), file);
}
