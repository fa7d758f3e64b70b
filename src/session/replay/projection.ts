import type { CommittedBatch, StoredEvent } from '../../codec/batch.js';
import { isJsonObjectText, type Message } from './message.js';
import { decodePayload, isReplayedKind, PayloadSchemas, type Payload, type ReplayedKind } from './payloads.js';

/** A message of the canonical transcript, with where and when it entered the log. */
export interface TranscriptEntry {
  message: Message;
  /** Sequence of the event that last wrote it. */
  seq: number;
  /** Commit time of that event's batch, in unix milliseconds. */
  batchTime: number;
}

/** Something Reasonix 1.38.11 would refuse, although rxstore can read it (docs/format.md §7.2, §7.5). */
export interface StrictnessFinding {
  seq: number;
  offset: number;
  kind: string;
  message: string;
  /** Reasonix reports it as a damaged store; otherwise it fails with a message of its own (a submission receipt). */
  damaged: boolean;
}

/** One turn as its turn/start and turn/end events tell it. */
export interface TurnRecord {
  turnId: string;
  status: 'in_progress' | 'completed' | 'failed' | 'interrupted';
  startSeq: number;
}

/** What a replay keeps and checks as it goes. */
export interface ProjectionOptions {
  /**
   * Keep each message whole (the default). Without it only what summaries need is kept — role, id,
   * origin, flags, tool-call names and whether their arguments parse, the start of the content of
   * user messages (a preview) and tool results (a pruning marker) — so a session of any size is
   * summarised in little memory.
   */
  retainContent?: boolean;
  /**
   * Judge each payload as Reasonix's v4 decoder does (the default). A JSONL transcript's messages
   * were already judged by its loader, which is lenient; only a repeated id, which Reasonix refuses
   * when it migrates them into events, is judged here. Either way the first refusal stops the
   * replay there, so every view holds only what precedes it.
   */
  judgePayloads?: boolean;
}

/** Enough of a message's text to tell a pruned tool result or a preview apart. */
const SUMMARY_CONTENT_CHARS = 200;

/** The line Reasonix's host session-context message names the workspace with. */
const WORKSPACE_LINE = /Current workspace: "((?:[^"\\]|\\.)*)"/;

/**
 * Replays committed events into the linear message lists Reasonix keeps (docs/format.md §7.5): the
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
  /** The workspace the latest host session-context message names. */
  workspace: string | undefined;
  /** Ids of the transcript's messages, so a duplicate is found without a scan. */
  private readonly ids = new Set<string>();
  private readonly retainContent: boolean;
  private readonly judgePayloads: boolean;
  /** The tool calls the model's list holds a result for; rebuilt after the list is replaced. */
  private answered: Set<string> | undefined;
  private timedCreatedAt: string | undefined;
  private timedBatchTime = 0;

  constructor(options: ProjectionOptions = {}) {
    this.retainContent = options.retainContent ?? true;
    this.judgePayloads = options.judgePayloads ?? true;
  }

  /** The sequence of the first event Reasonix would refuse: the views stop before it. */
  get refusedAt(): number | undefined {
    return this.strictness[0]?.seq;
  }

  /**
   * Replays one event. `payload` is its parsed JSON (undefined when it has none or it is not
   * JSON), `bytes` what the log holds; the payload is judged as Reasonix 1.38.11 decodes it
   * (`decodePayload`). The first event it would refuse is noted and stops the replay there, so the
   * views hold what precedes it; later payloads are still judged and noted.
   */
  apply(batch: CommittedBatch, event: StoredEvent, payload: unknown, bytes?: Buffer): void {
    // Events arrive batch by batch: the commit time is parsed once per batch, not per event.
    if (batch.createdAt !== this.timedCreatedAt) {
      this.timedCreatedAt = batch.createdAt;
      this.timedBatchTime = Date.parse(batch.createdAt) || 0;
    }
    const batchTime = this.timedBatchTime;
    // Past a refusal the payloads are still checked (each is reported), but nothing more is replayed.
    const halted = this.refusedAt !== undefined;
    if (event.kind === 'turn/start' && batch.turnId && !halted) {
      this.turns.set(batch.turnId, { turnId: batch.turnId, status: 'in_progress', startSeq: event.seq });
    }
    const verdict = this.judgePayloads
      ? decodePayload(event.kind, bytes ?? (payload === undefined ? undefined : Buffer.from(JSON.stringify(payload))), payload)
      : ({ state: 'ok', value: payload } as const);
    if (verdict.state === 'refused' && this.noteStrict(event, verdict.reason, verdict.damaged)) return;
    if (!isReplayedKind(event.kind)) return;
    const kind: ReplayedKind = event.kind;
    if (halted) return;
    const parsed = PayloadSchemas[kind].safeParse(verdict.state === 'ok' ? verdict.value : payload);
    if (!parsed.success) return;
    let loose: { data: unknown } = parsed;
    const entry = (message: Message): TranscriptEntry => ({ message, seq: event.seq, batchTime });
    loose = { data: this.kept(loose.data) };
    switch (kind) {
      case 'message/complete': {
        const { message } = loose.data as Payload<'message/complete'>;
        if (verdict.state === 'ok' && message.id !== undefined && this.ids.has(message.id)) {
          if (this.noteStrict(event, `duplicate stable message id ${JSON.stringify(message.id)}`, true)) return;
        }
        // Reasonix keys the model's transcript by record; a second result for one tool call is refused when it loads it.
        const answers = !message.local_only && message.role === 'tool' && message.tool_call_id ? message.tool_call_id : undefined;
        if (answers !== undefined && this.answeredInModel().has(answers)) {
          if (this.noteStrict(event, `session: initialize transcript: duplicate transcript record ${JSON.stringify(`tool:${answers}`)}`, false)) return;
        }
        this.push(entry(message));
        if (!message.local_only) this.modelMessages.push(message);
        if (answers !== undefined) this.answered?.add(answers);
        break;
      }
      case 'message/upsert': {
        const { message } = loose.data as Payload<'message/upsert'>;
        this.answered = undefined;
        const at = message.id !== undefined && this.ids.has(message.id) ? this.indexOf(message.id) : -1;
        if (at >= 0) this.transcript[at] = entry(message);
        else this.push(entry(message));
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
        removeWhere(this.transcript, (existing) => ids.has(existing.message.id ?? ''));
        for (const id of ids) this.ids.delete(id);
        this.modelMessages = this.modelMessages.filter((message) => !ids.has(message.id ?? ''));
        this.answered = undefined;
        break;
      }
      case 'history/replace':
      case 'legacy/import': {
        const { messages } = loose.data as Payload<'history/replace'>;
        // Repeated ids inside the list: Reasonix 1.38.11 opens such a session; the first of each is kept.
        const list = firstPerId(messages);
        replaceContents(this.transcript, list.map(entry));
        this.ids.clear();
        for (const message of list) if (message.id !== undefined) this.ids.add(message.id);
        this.modelMessages = list.filter((message) => !message.local_only);
        this.answered = undefined;
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
        this.answered = undefined;
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

  /** The payload with its messages as this projection keeps them, noting the workspace on the way. */
  private kept(data: unknown): unknown {
    const record = data as { message?: Message; messages?: Message[] };
    const keep = (message: Message): Message => {
      if (message.origin === 'host' && typeof message.content === 'string') {
        const named = WORKSPACE_LINE.exec(message.content)?.[1];
        if (named !== undefined) this.workspace = named;
      }
      return this.retainContent ? message : summaryOf(message);
    };
    if (record.message) return { ...record, message: keep(record.message) };
    if (record.messages) return { ...record, messages: record.messages.map(keep) };
    return data;
  }

  /** Turns started and not ended: at a cut by damage, what they hold may go on past it. */
  openTurns(): TurnRecord[] {
    return [...this.turns.values()].filter((turn) => turn.status === 'in_progress');
  }

  /** The sequence the first open turn started at (Infinity when none is open): past it, a cut may hide what ends it. */
  openFrom(): number {
    return Math.min(...this.openTurns().map((turn) => turn.startSeq));
  }

  private answeredInModel(): Set<string> {
    this.answered ??= new Set(this.modelMessages.flatMap((message) => (message.role === 'tool' && message.tool_call_id && !message.local_only ? [message.tool_call_id] : [])));
    return this.answered;
  }

  private indexOf(id: string): number {
    return this.transcript.findIndex((existing) => existing.message.id === id);
  }

  private push(entry: TranscriptEntry): void {
    this.transcript.push(entry);
    if (entry.message.id !== undefined) this.ids.add(entry.message.id);
  }

  /** Notes what Reasonix would refuse (once an event); the replay stops here. */
  private noteStrict(event: StoredEvent, message: string, damaged: boolean): boolean {
    if (this.strictness.at(-1)?.seq !== event.seq) this.strictness.push({ seq: event.seq, offset: event.offset, kind: event.kind, message, damaged });
    return true;
  }
}

/**
 * What summaries need of a message: tool-call arguments cut to whether they parse, and the text of
 * user messages and tool results to a prefix; other text is left out (it is most of what a long
 * session holds live, and nothing reads it).
 */
function summaryOf(message: Message): Message {
  const { role, id, origin, local_only, tool_call_id, name, createdAt } = message;
  const read = role === 'user' || role === 'tool';
  const raw_content = read ? message.raw_content : undefined;
  const content = read || typeof message.content !== 'string' ? message.content : '';
  return {
    role,
    ...(id !== undefined ? { id } : {}),
    ...(origin !== undefined ? { origin } : {}),
    ...(local_only ? { local_only } : {}),
    ...(tool_call_id !== undefined ? { tool_call_id } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(raw_content ? { raw_content: prefixOf(raw_content) } : {}),
    content: typeof content === 'string' ? prefixOf(content) : content,
    ...(message.tool_calls
      ? { tool_calls: message.tool_calls.map((call) => ({ id: call.id, name: call.name ?? call.function?.name, arguments: isJsonObjectText(call.arguments ?? call.function?.arguments ?? '') ? '{}' : (call.arguments ?? call.function?.arguments ?? '') === '' ? '' : 'not an object' })) }
      : {}),
  };
}

/** The start of a text as a string of its own: a plain slice would keep the whole text alive. */
function prefixOf(text: string): string {
  return text.length <= SUMMARY_CONTENT_CHARS ? text : Buffer.from(text.slice(0, SUMMARY_CONTENT_CHARS)).toString();
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
