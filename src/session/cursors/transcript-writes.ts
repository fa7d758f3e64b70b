import type { Message } from '../replay/message.js';
import { seenByPerson } from '../replay/views.js';

/** A transcript message as a records piece names it: its id (null for one without) and whether a person sees it. */
export interface WrittenMessage {
  id: string | null;
  /** The person view holds it (what `cat` prints and numbers): not the host's session-context, not local-only. */
  seen: boolean;
}

/**
 * What the batches of a records piece wrote to the transcript, in order. Applied in order, an entry
 * whose id the transcript already holds rewrites that message in place (its place kept); any other is
 * appended. `whole`: the transcript was written again from nothing (a history replace, a retract, a
 * batch read by the whole log), and is what these entries make of an empty one.
 */
export interface TranscriptWrites {
  whole: boolean;
  entries: WrittenMessage[];
}

/** A transcript message as a records piece names it. */
export function writtenMessage(message: Pick<Message, 'id' | 'origin' | 'local_only'>): WrittenMessage {
  return { id: message.id ?? null, seen: seenByPerson(message) };
}

/** The entries of transcript messages, in their order. */
export function writtenMessages(
  messages: readonly { message: Pick<Message, 'id' | 'origin' | 'local_only'> }[],
): WrittenMessage[] {
  return messages.map(({ message }) => writtenMessage(message));
}

/** The transcript writes of the batches read since the last piece, given with the next one. */
export class TranscriptWritesRead {
  private whole = false;
  private entries: WrittenMessage[] = [];

  /** A batch wrote these messages (in place or at the end). */
  wrote(entries: readonly WrittenMessage[]): void {
    this.entries.push(...entries);
  }

  /** A batch wrote the transcript again: it is these messages alone. */
  rewrote(entries: readonly WrittenMessage[]): void {
    this.whole = true;
    this.entries = [...entries];
  }

  /** `transcript` for the piece given now: what was written since the last one, if anything. */
  given(): { transcript?: TranscriptWrites } {
    if (!this.whole && this.entries.length === 0) return {};
    const transcript = { whole: this.whole, entries: this.entries };
    this.whole = false;
    this.entries = [];
    return { transcript };
  }
}
