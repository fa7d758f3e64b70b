import type { CommittedBatch, StoredEvent } from '../codec/batch.js';
import type { Message } from './message.js';
import { isReplayedKind, PayloadSchemas, StrictPayloadSchemas, type Payload, type ReplayedKind } from './payloads.js';

/** A message of the canonical transcript, with where and when it entered the log. */
export interface TranscriptEntry {
  message: Message;
  /** Sequence of the event that last wrote it. */
  seq: number;
  /** Commit time of that event's batch, in unix milliseconds. */
  batchTime: number;
}

/** Something Reasonix 1.38.11 would refuse, although rxstore can read it (spec §7.2, §7.5). */
export interface StrictnessFinding {
  seq: number;
  offset: number;
  kind: string;
  message: string;
}

/** One turn as its turn/start and turn/end events tell it. */
export interface TurnRecord {
  turnId: string;
  status: 'in_progress' | 'completed' | 'failed' | 'interrupted';
  startSeq: number;
}

/**
 * Replays committed events into the linear message lists Reasonix keeps (spec §7.5): the
 * canonical transcript (every message, compacted ones included) and the model's list (what is
 * sent to the model, with compaction checkpoints applied).
 */
export class Projection {
  readonly transcript: TranscriptEntry[] = [];
  modelMessages: Message[] = [];
  title: string | undefined;
  titleSequence: number | undefined;
  modelRef: string | undefined;
  modelIdentity: string | undefined;
  readonly turns = new Map<string, TurnRecord>();
  /** Sequences of `model/context-replace` and `compaction` events: the compaction checkpoints. */
  readonly compactions: number[] = [];
  readonly strictness: StrictnessFinding[] = [];
  /** Events whose payload did not even have the loose shape: skipped, and reported. */
  readonly unreadable: StrictnessFinding[] = [];

  apply(batch: CommittedBatch, event: StoredEvent, payload: unknown): void {
    const batchTime = Date.parse(batch.createdAt) || 0;
    if (event.kind === 'turn/start' && batch.turnId) {
      this.turns.set(batch.turnId, { turnId: batch.turnId, status: 'in_progress', startSeq: event.seq });
    }
    if (!isReplayedKind(event.kind)) return;
    const kind: ReplayedKind = event.kind;
    const strict = StrictPayloadSchemas[kind].safeParse(payload);
    if (!strict.success) this.noteStrict(event, describeIssue(strict.error.issues[0]));
    const loose = PayloadSchemas[kind].safeParse(payload);
    if (!loose.success) {
      this.unreadable.push({ seq: event.seq, offset: event.offset, kind, message: describeIssue(loose.error.issues[0]) });
      return;
    }
    const entry = (message: Message): TranscriptEntry => ({ message, seq: event.seq, batchTime });
    switch (kind) {
      case 'message/complete': {
        const { message } = loose.data as Payload<'message/complete'>;
        if (this.indexOf(message.id) >= 0) this.noteStrict(event, `duplicate stable message id ${JSON.stringify(message.id)}`);
        this.transcript.push(entry(message));
        if (!message.local_only) this.modelMessages.push(message);
        break;
      }
      case 'message/upsert': {
        const { message } = loose.data as Payload<'message/upsert'>;
        const at = this.indexOf(message.id);
        if (at >= 0) this.transcript[at] = entry(message);
        else this.transcript.push(entry(message));
        const modelAt = this.modelMessages.findIndex((existing) => message.id !== undefined && existing.id === message.id);
        if (message.local_only) {
          if (modelAt >= 0) this.modelMessages.splice(modelAt, 1);
        } else if (modelAt >= 0) this.modelMessages[modelAt] = message;
        else this.modelMessages.push(message);
        break;
      }
      case 'message/retract': {
        const { messageIds } = loose.data as Payload<'message/retract'>;
        const ids = new Set(messageIds);
        if (ids.size !== messageIds.length || messageIds.some((id) => id === '' || id.trim() !== id)) {
          this.noteStrict(event, 'message/retract ids must be non-empty, unpadded and unique');
        }
        removeWhere(this.transcript, (existing) => ids.has(existing.message.id ?? ''));
        this.modelMessages = this.modelMessages.filter((message) => !ids.has(message.id ?? ''));
        break;
      }
      case 'history/replace':
      case 'legacy/import': {
        const { messages } = loose.data as Payload<'history/replace'>;
        const list = kind === 'legacy/import' ? firstPerId(messages) : messages;
        if (kind === 'history/replace' && firstPerId(messages).length !== messages.length) {
          this.noteStrict(event, 'duplicate transcript record in history/replace');
        }
        replaceContents(this.transcript, list.map(entry));
        this.modelMessages = list.filter((message) => !message.local_only);
        if (kind === 'legacy/import') {
          const data = loose.data as Payload<'legacy/import'>;
          if (data.modelRef) this.modelRef = data.modelRef;
          if (data.modelIdentity) this.modelIdentity = data.modelIdentity;
        }
        break;
      }
      case 'model/context-replace':
      case 'compaction': {
        // A checkpoint changes only what the model is sent; the transcript keeps every message.
        this.modelMessages = [...(loose.data as Payload<'compaction'>).messages];
        this.compactions.push(event.seq);
        break;
      }
      case 'session/title':
        this.title = (loose.data as Payload<'session/title'>).title;
        this.titleSequence = event.seq + 1;
        break;
      case 'session/config': {
        const config = loose.data as Payload<'session/config'>;
        this.modelRef = config.modelRef;
        if (config.modelIdentity !== undefined) this.modelIdentity = config.modelIdentity;
        break;
      }
      case 'turn/end': {
        const { status } = loose.data as Payload<'turn/end'>;
        const turnId = batch.turnId ?? '';
        const turn = this.turns.get(turnId);
        this.turns.set(turnId, { turnId, status, startSeq: turn?.startSeq ?? event.seq });
        break;
      }
      case 'assistant/attempt':
        break;
    }
  }

  private indexOf(id: string | undefined): number {
    if (id === undefined) return -1;
    return this.transcript.findIndex((existing) => existing.message.id === id);
  }

  private noteStrict(event: StoredEvent, message: string): void {
    this.strictness.push({ seq: event.seq, offset: event.offset, kind: event.kind, message });
  }
}

function firstPerId(messages: Message[]): Message[] {
  const seen = new Set<string>();
  return messages.filter((message) => {
    if (message.id === undefined) return true;
    if (seen.has(message.id)) return false;
    seen.add(message.id);
    return true;
  });
}

function removeWhere<T>(list: T[], predicate: (item: T) => boolean): void {
  replaceContents(list, list.filter((item) => !predicate(item)));
}

/** Replaces a list's contents in place; a spread of a long list would overflow the call stack. */
function replaceContents<T>(list: T[], items: T[]): void {
  list.length = 0;
  for (const item of items) list.push(item);
}

function describeIssue(issue: { path: PropertyKey[]; message: string; code?: string; keys?: string[] } | undefined): string {
  if (!issue) return 'invalid payload';
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    return `unknown field ${JSON.stringify(issue.keys[0])}${path ? ` in ${path}` : ''}`;
  }
  return `${path ? `${path}: ` : ''}${issue.message}`;
}
