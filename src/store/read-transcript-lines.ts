import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** What listing needs from a JSONL transcript (spec §11.1): one message a line. */
export interface TranscriptLines {
  messages: number;
  /** The text of the first user message: the title when no meta gives one. */
  firstUserText: string | null;
  /** The first line that is not a message, when checked. */
  problem: string | null;
}

/**
 * Counts a transcript's messages and finds its first user message. With `verify`, every line must
 * be a JSON object with a `role` (the message shape, spec §8); otherwise only lines up to the
 * first user message are parsed, and only a problem among them is found.
 */
export async function readTranscriptLines(path: string, verify: boolean): Promise<TranscriptLines> {
  const lines: TranscriptLines = { messages: 0, firstUserText: null, problem: null };
  const input = createReadStream(path, { encoding: 'utf8' });
  let number = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    number += 1;
    if (line.trim() === '') continue;
    lines.messages += 1;
    if (!verify && lines.firstUserText !== null) continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      lines.problem ??= `line ${number}: ${(error as Error).message}`;
      continue;
    }
    if (typeof message !== 'object' || message === null || typeof (message as { role?: unknown }).role !== 'string') {
      lines.problem ??= `line ${number}: not a message (an object with a role)`;
      continue;
    }
    const { role, content } = message as { role: string; content?: unknown };
    if (role === 'user' && lines.firstUserText === null && typeof content === 'string') lines.firstUserText = content;
  }
  return lines;
}
