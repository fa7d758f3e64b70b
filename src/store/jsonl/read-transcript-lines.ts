import type { RxErrorCode } from '../../errors/index.js';
import { seenByPerson } from '../../session/replay/views.js';
import { readTranscript } from './jsonl-transcript.js';

/** What listing needs from a JSONL transcript (docs/format.md §11.1): one message a line. */
export interface TranscriptLines {
  /** The messages a person sees: host session-context lines and local-only records are not counted. */
  messages: number;
  /** The text of the first message a person typed: the title when no meta gives one. */
  firstUserText: string | null;
  /** The first line that is not a message. */
  problem: string | null;
  /** Its code: the line's error's, or `RX_MIGRATION_REFUSED` for an id used twice (Reasonix refuses to migrate it). */
  problemCode: RxErrorCode | null;
}

/**
 * Counts a transcript's messages and finds its first user message. The whole file is read as
 * Reasonix reads it, always (`readTranscript`): a listing never calls a transcript `ok` without
 * having read it (parsing JSON costs little beside decoding a v4 log).
 */
export async function readTranscriptLines(path: string): Promise<TranscriptLines> {
  const { lines, errors } = await readTranscript(path);
  // A message a person typed, as a v4 copy's title is taken from: not the host's session-context message.
  const firstUser = lines.find(
    ({ value }) => value.role === 'user' && seenByPerson(value) && typeof value.content === 'string',
  );
  const firstUserText = (firstUser?.value.content as string | undefined) ?? null;
  const messages = lines.filter(({ value }) => seenByPerson(value)).length;
  // Reasonix migrates the messages into v4 events, where an id used twice is refused.
  const seen = new Set<string>();
  const repeated = lines.find(
    ({ value }) => typeof value.id === 'string' && value.id !== '' && (seen.has(value.id) || !seen.add(value.id)),
  );
  const problem =
    errors[0]?.message ??
    (repeated
      ? `line ${repeated.line}: duplicate stable message id ${JSON.stringify(repeated.value.id)} (Reasonix refuses it)`
      : null);
  const problemCode = errors[0]?.code ?? (repeated ? 'RX_MIGRATION_REFUSED' : null);
  return { messages, firstUserText, problem, problemCode };
}
