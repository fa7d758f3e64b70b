import type { EmptyTranscriptError, RxErrorCode, TranscriptLineError } from '../../errors/index.js';
import { seenByPerson } from '../../session/replay/views.js';
import { transcriptFileRuns } from './jsonl-transcript.js';

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
 * Reasonix reads it, always (`transcriptFileRuns`): a listing never calls a transcript `ok` without
 * having read it (parsing JSON costs little beside decoding a v4 log). A run of messages at a time:
 * what is kept is the count, the first typed text and the ids seen, whatever the transcript's length.
 */
export async function readTranscriptLines(path: string): Promise<TranscriptLines> {
  let messages = 0;
  let firstUserText: string | null = null;
  // Reasonix migrates the messages into v4 events, where an id used twice is refused.
  const seen = new Set<string>();
  let repeated: { line: number; id: string } | undefined;
  let error: TranscriptLineError | EmptyTranscriptError | undefined;
  for await (const run of transcriptFileRuns(path)) {
    for (const { value, line } of run.lines) {
      if (seenByPerson(value)) {
        messages += 1;
        // A message a person typed, as a v4 copy's title is taken from: not the host's session-context message.
        if (firstUserText === null && value.role === 'user' && typeof value.content === 'string')
          firstUserText = value.content;
      }
      const id = value.id;
      if (repeated === undefined && typeof id === 'string' && id !== '' && (seen.has(id) || !seen.add(id)))
        repeated = { line, id };
    }
    error = run.errors[0];
    if (error) break;
  }
  const problem =
    error?.message ??
    (repeated
      ? `line ${repeated.line}: duplicate stable message id ${JSON.stringify(repeated.id)} (Reasonix refuses it)`
      : null);
  const problemCode = error?.code ?? (repeated ? 'RX_MIGRATION_REFUSED' : null);
  return { messages, firstUserText, problem, problemCode };
}
