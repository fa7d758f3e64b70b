import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseTranscript, readTranscript } from './jsonl-transcript.js';

/** What listing needs from a JSONL transcript (spec §11.1): one message a line. */
export interface TranscriptLines {
  messages: number;
  /** The text of the first user message: the title when no meta gives one. */
  firstUserText: string | null;
  /** The first line that is not a message, when checked. */
  problem: string | null;
}

/**
 * Counts a transcript's messages and finds its first user message. With `verify` the whole file
 * is read as Reasonix reads it (`readTranscript`); otherwise the file is streamed, blank lines
 * skipped, only lines up to the first user message parsed, and only an empty file or a first
 * byte no JSON value starts with (a byte-order mark) found.
 */
export async function readTranscriptLines(path: string, verify: boolean): Promise<TranscriptLines> {
  if (verify) {
    const { lines, errors } = await readTranscript(path);
    const firstUser = lines.find(({ value }) => value.role === 'user' && typeof value.content === 'string');
    // Reasonix migrates the messages into v4 events, where an id used twice is refused.
    const seen = new Set<string>();
    const repeated = lines.find(({ value }) => typeof value.id === 'string' && value.id !== '' && (seen.has(value.id) || !seen.add(value.id)));
    if (repeated && errors.length === 0) {
      return { messages: lines.length, firstUserText: (firstUser?.value.content as string | undefined) ?? null, problem: `line ${repeated.line}: duplicate stable message id ${JSON.stringify(repeated.value.id)} (Reasonix refuses it)` };
    }
    return { messages: lines.length, firstUserText: (firstUser?.value.content as string | undefined) ?? null, problem: errors[0]?.message ?? null };
  }
  const found: TranscriptLines = { messages: 0, firstUserText: null, problem: null };
  let bytes = 0;
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    bytes += line.length + 1;
    if (line.trim() === '') continue;
    // What stops Reasonix's loader at the first byte is checked even without --verify (a byte-order mark, UTF-16).
    if (found.messages === 0 && !/^[ \t\r]*[{["\-0-9tfn]/.test(line)) found.problem = parseTranscript(line, path).errors[0]?.message ?? null;
    found.messages += 1;
    if (found.firstUserText !== null || !line.includes('"user"')) continue;
    try {
      const message = JSON.parse(line) as { role?: unknown; content?: unknown };
      if (message.role === 'user' && typeof message.content === 'string') found.firstUserText = message.content;
    } catch {
      // Not checked without --verify: a bad line is counted and passed over.
    }
  }
  if (bytes === 0) found.problem = 'empty transcript: Reasonix does not list it (no session matches)';
  return found;
}
