import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { seenByPerson } from '../session/views.js';
import { readTranscript } from './jsonl-transcript.js';

/** What listing needs from a JSONL transcript (spec §11.1): one message a line. */
export interface TranscriptLines {
  /** The messages a person sees: host session-context lines and local-only records are not counted. */
  messages: number;
  /** The text of the first user message: the title when no meta gives one. */
  firstUserText: string | null;
  /** The first line that is not a message, when checked. */
  problem: string | null;
}

/**
 * Counts a transcript's messages and finds its first user message. With `verify` every line is
 * parsed and checked (`readTranscript`); otherwise the file is streamed, blank lines skipped, and
 * only lines up to the first user message, and lines that may be the host's, are parsed.
 */
export async function readTranscriptLines(path: string, verify: boolean): Promise<TranscriptLines> {
  if (verify) {
    const { lines, errors } = await readTranscript(path);
    const firstUser = lines.find(({ value }) => value.role === 'user' && typeof value.content === 'string');
    return { messages: lines.filter(({ value }) => seenByPerson(value)).length, firstUserText: (firstUser?.value.content as string | undefined) ?? null, problem: errors[0]?.message ?? null };
  }
  const found: TranscriptLines = { messages: 0, firstUserText: null, problem: null };
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const mayBeHidden = line.includes('"origin"') || line.includes('"local_only"');
    const mayBeFirst = found.firstUserText === null && line.includes('"user"');
    if (!mayBeHidden && !mayBeFirst) {
      found.messages += 1;
      continue;
    }
    try {
      const message = JSON.parse(line) as { role?: unknown; content?: unknown; origin?: unknown; local_only?: unknown };
      if (!seenByPerson(message as { origin?: string; local_only?: boolean })) continue;
      found.messages += 1;
      if (mayBeFirst && message.role === 'user' && typeof message.content === 'string') found.firstUserText = message.content;
    } catch {
      // Not checked without --verify: a bad line is counted and passed over.
      found.messages += 1;
    }
  }
  return found;
}
