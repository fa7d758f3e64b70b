import { readTranscript } from './jsonl-transcript.js';

/** What listing needs from a JSONL transcript (spec §11.1): one message a line. */
export interface TranscriptLines {
  messages: number;
  /** The text of the first user message: the title when no meta gives one. */
  firstUserText: string | null;
  /** The first line that is not a message. */
  problem: string | null;
}

/**
 * Counts a transcript's messages and finds its first user message. Every line is parsed and
 * checked as Reasonix reads it, always: a listing never calls a transcript `ok` without having
 * read it (parsing JSON lines costs little beside decoding a v4 log).
 */
export async function readTranscriptLines(path: string): Promise<TranscriptLines> {
  const { lines, errors } = await readTranscript(path);
  const firstUser = lines.find(({ value }) => value.role === 'user' && typeof value.content === 'string');
  return { messages: lines.length + errors.length, firstUserText: (firstUser?.value.content as string | undefined) ?? null, problem: errors[0]?.message ?? null };
}
