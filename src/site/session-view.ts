import * as z from 'zod';
import { isoTime } from '../codec/iso-time.js';
import {
  errorFromProblem,
  isSessionVerdict,
  problemFromError,
  type Problem,
  type RxError,
  type TooLargeError,
} from '../errors/index.js';
import { workspaceOf, type SessionRead } from '../session/verdict/read-session.js';
import type { Message } from '../session/replay/message.js';
import type { IndexedTranscript } from '../session/replay/transcript-index.js';
import type { TimedMessage } from '../session/replay/views.js';
import type { OpenedSession } from '../store/open-session.js';
import type { Platform } from '../store/roots/platform.js';
import { flatToolCall } from '../session/replay/message.js';
import { decodePayload, PayloadSchemas } from '../session/replay/payloads.js';
import { canonicalTranscript, personMessage, transcriptClock } from '../session/replay/views.js';
import { readUpToTooLarge, transcriptEntries } from '../store/jsonl/transcript-records.js';
import { currentPlatform } from '../store/roots/platform.js';
import { sessionWorkspace } from '../store/listing/store-workspace.js';
import { fromFolder, reasonixResume } from '../store/roots/shell-command.js';
import { toolCallView, type ToolCallView } from './tool-call-view.js';

/** What a page says about a session before its messages. */
export interface ViewHeader {
  id: string;
  path: string;
  store: string;
  title: string | null;
  workspace: string | null;
  startedAt: string | null;
  updatedAt: string | null;
  model: string | null;
  counts: { messages: number; user: number; assistant: number; toolCalls: number; turns: number; compactions: number };
  /** A command that reopens the session in Reasonix; null where none does directly. */
  resume: string | null;
  status: string;
  /** Why Reasonix would refuse the session: where the page stops, and why. */
  damage: Problem[];
  /** Bytes after the last committed batch that no reader sees. */
  tornTailBytes: number;
}

export type ViewItem =
  | {
      type: 'message';
      role: string;
      time: string;
      text: string;
      reasoning: string;
      /** The text's size in UTF-8 bytes: the size a page says a message has. */
      bytes: number;
      /** The size of the JSON payload kept in the content store (a payloadRef); null for an inline message. */
      storedBytes: number | null;
      /** The message's id, which a search hit names: the page's anchor for it. */
      messageId: string | null;
    }
  | {
      type: 'tool';
      time: string;
      call: ToolCallView;
      /** The ids a search hit may name for this call: the calling message's (when it showed no text of its own) and the result's. */
      messageIds: string[];
    }
  | { type: 'compaction'; time: string | null; summary: string | null }
  | { type: 'turn'; status: string };

export interface SessionView {
  header: ViewHeader;
  /** The person's view in order, tool calls paired with their results, markers where they happened. */
  items: AsyncIterable<ViewItem>;
  /** After `items` ends: why it stopped early, if it did (a coded error met while reading). */
  stoppedBy(): Problem | undefined;
  /** After `items` ends: the error a reader of the session meets where it stopped early, if it did. */
  stoppedWith(): RxError | undefined;
  /** Why Reasonix would refuse the session, as the error every other reader of it throws. */
  refusal: RxError | undefined;
}

const MESSAGE_KINDS = new Set(['message/complete', 'message/upsert', 'history/replace', 'legacy/import']);
const COMPACTION_KINDS = new Set(['compaction', 'model/context-replace']);
const ToolResultEventSchema = z.looseObject({ id: z.string(), durationMs: z.number().optional() });
const SUMMARY_OPENING = '<compaction-summary>';

/** A transcript message with where its text is found in the log. */
interface Entry extends TimedMessage {
  key: string;
}

interface Received {
  message: Message;
  /** The size of the event's payload when it was kept in the content store; null when inline. */
  storedBytes: number | null;
}

/**
 * Reads a session for a page in two passes, so that a session of any size renders in bounded
 * memory: first a summary read (the order of messages, turns, compactions, damage — a few hundred
 * bytes a message), then the log streamed a batch at a time, each message's full text taken from
 * the event that last wrote it and handed on as soon as every message before it has been.
 * A JSONL transcript has no events to take a message's size or a call's duration from: its header
 * is counted from the transcript's index, and its messages are read again after it, a run at a time.
 */
export interface SessionViewOptions {
  platform?: Platform;
  /**
   * The command that resumes the session, as `rxstore where` gives it (with the folder and the
   * Reasonix home it needs; null when none does). Without it, the page guesses from the session alone.
   */
  resume?: string | null;
}

export async function readSessionView(session: OpenedSession, options: SessionViewOptions = {}): Promise<SessionView> {
  let read: SessionRead;
  const jsonl = session.format === 'jsonl';
  // A transcript with a message longer than rxstore reads: a page of the messages before it, the error after them.
  let tooLarge: TooLargeError | undefined;
  try {
    // A transcript's index read is the one its streamed transcript starts from: read once, shared.
    const firstPass = () => session.read({ keep: jsonl ? 'index' : 'summary' });
    ({ whole: read, tooLarge } = jsonl
      ? await readUpToTooLarge(session.path, firstPass)
      : { whole: await firstPass() });
  } catch (error) {
    if (!isSessionVerdict(error)) throw error;
    return unreadableView(session, error);
  }
  const visible = jsonl ? [] : keyed(canonicalTranscript(read.projection)).filter((entry) => personMessage(entry));
  const seen = jsonl ? seenInIndex(read.projection.transcriptIndex) : seenInSummaries(visible);
  const platform = options.platform ?? currentPlatform();
  // A relocated session is named by the folder it is resumed from, as `ls` names it.
  const workspace = await sessionWorkspace(session.path, workspaceOf(read) ?? null, platform);
  const header = headerOf(session, read, seen, { platform, workspace, resume: options.resume });
  // As `ls` calls it: rxstore could not read it whole.
  if (tooLarge) header.status = 'unreadable';
  let stoppedBy: Problem | undefined;
  const assembler = new ItemAssembler(read);

  async function* items(): AsyncGenerator<ViewItem> {
    if (jsonl) {
      const clock = transcriptClock();
      try {
        // Read again from the read the header was made of, whatever the transcript's size: one that changed
        // since ends in an error, never in a page of two transcripts.
        for await (const entry of transcriptEntries(session.path, async () => read)) {
          const timed = clock(entry);
          if (personMessage(timed)) yield* assembler.message(timed, { message: timed.message, storedBytes: null });
        }
        if (tooLarge) stoppedBy = problemFromError(tooLarge);
      } catch (error) {
        if (!isSessionVerdict(error)) throw error;
        stoppedBy = problemFromError(error);
      }
      yield* assembler.finish();
      return;
    }
    const wanted = new Set(visible.map((entry) => entry.key));
    const received = new Map<string, Received[]>();
    let next = 0;
    const ready = function* (final: boolean): Generator<ViewItem> {
      while (next < visible.length) {
        const entry = visible[next]!;
        const found = received.get(entry.key)?.shift();
        // A message the streamed pass did not meet (the log changed between the passes) keeps its summary.
        if (!found && !final) return;
        yield* assembler.message(entry, found ?? { message: entry.message, storedBytes: null });
        next += 1;
      }
    };
    try {
      for await (const { batch, payloads, payloadBytes } of session.events()) {
        if (batch.firstSeq > read.lastSequence) break;
        batch.events.forEach((event, index) => {
          const payload = payloads[index];
          if (MESSAGE_KINDS.has(event.kind)) {
            // Decoded as Reasonix decodes it (a key written twice applied twice), as the replay did.
            const decoded = decodePayload(event.kind, undefined, payload);
            const value = decoded.state === 'ok' ? decoded.value : payload;
            const parsed = PayloadSchemas[event.kind as 'history/replace'].safeParse(value);
            const single = PayloadSchemas['message/complete'].safeParse(value);
            const messages = single.success ? [single.data.message] : parsed.success ? parsed.data.messages : [];
            const keys = occurrenceKeys(event.seq, messages);
            messages.forEach((message, at) => {
              const key = keys[at]!;
              if (!wanted.has(key)) return;
              const storedBytes = event.payloadRef !== undefined ? (payloadBytes[index]?.length ?? 0) : null;
              received.set(key, [...(received.get(key) ?? []), { message, storedBytes }]);
            });
          } else if (event.kind === 'tool/result') {
            const result = ToolResultEventSchema.safeParse(payload);
            if (result.success && result.data.durationMs !== undefined)
              assembler.eventDurations.set(result.data.id, result.data.durationMs);
          } else if (COMPACTION_KINDS.has(event.kind)) {
            const parsed = PayloadSchemas.compaction.safeParse(payload);
            const summary = parsed.success
              ? parsed.data.messages.find((message) => message.content?.startsWith(SUMMARY_OPENING))
              : undefined;
            if (summary?.content) assembler.summaries.set(event.seq, summary.content);
          }
        });
        yield* ready(false);
      }
    } catch (error) {
      if (!isSessionVerdict(error)) throw error;
      stoppedBy = problemFromError(error);
    }
    yield* ready(true);
    yield* assembler.finish();
  }

  const stopped = () => stoppedBy ?? header.damage[0];
  return {
    header,
    items: items(),
    stoppedBy: stopped,
    stoppedWith: () => {
      const problem = stopped();
      // rxstore's own bound keeps its code: it is no damage of the session's.
      if (tooLarge && problem === stoppedBy) return tooLarge;
      return problem && errorFromProblem(problem);
    },
    refusal: read.refusal,
  };
}

/**
 * Keys that find a transcript message again in the event that last wrote it: the event's
 * sequence, the message id, and which occurrence of that id (or of an id-less message) it is in
 * the event. Retractions and upserts go by id, so an id-less message keeps its place among the
 * id-less ones of its event.
 */
function keyed(transcript: TimedMessage[]): Entry[] {
  const seen = new Map<string, number>();
  return transcript.map((timed) => {
    const base = `${timed.seq}\u0000${timed.message.id ?? ''}\u0000${timed.message.id === undefined ? 'n' : 'i'}`;
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    return { ...timed, key: `${base}\u0000${occurrence}` };
  });
}

function occurrenceKeys(seq: number, messages: Message[]): string[] {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    const base = `${seq}\u0000${message.id ?? ''}\u0000${message.id === undefined ? 'n' : 'i'}`;
    const occurrence = seen.get(base) ?? 0;
    seen.set(base, occurrence + 1);
    return `${base}\u0000${occurrence}`;
  });
}

/**
 * Turns messages into items: a tool result becomes its call (arguments from the assistant message
 * that made it), calls never answered are shown when the conversation moves on, and turn and
 * compaction markers go before the first message written after them.
 */
class ItemAssembler {
  readonly eventDurations = new Map<string, number>();
  readonly summaries = new Map<number, string>();
  private readonly pending = new Map<string, { name: string; arguments: string; time: string; messageId?: string }>();
  private readonly turns: { startSeq: number; status: string }[];
  private readonly compactions: number[];
  private turn = -1;
  private compaction = 0;

  constructor(read: SessionRead) {
    this.turns = [...read.projection.turns.values()].sort((a, b) => a.startSeq - b.startSeq);
    this.compactions = [...read.projection.compactions].sort((a, b) => a - b);
  }

  *message(entry: TimedMessage, found: Received): Generator<ViewItem> {
    const time = new Date(entry.time).toISOString();
    yield* this.markersBefore(entry.seq, time);
    const { message } = found;
    if (message.role === 'tool') {
      const callId = message.tool_call_id ?? '';
      const call = this.pending.get(callId) ?? { name: message.name ?? '', arguments: '', time };
      this.pending.delete(callId);
      const messageIds = [call.messageId, message.id].filter((id): id is string => id !== undefined);
      yield {
        type: 'tool',
        time: call.time,
        call: toolCallView(call, found, this.eventDurations.get(callId)),
        messageIds,
      };
      this.eventDurations.delete(callId);
      return;
    }
    yield* this.unanswered();
    const person = personMessage({ message, time: entry.time })!;
    const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
    const shown = person.content !== '' || reasoning !== '' || !person.toolCalls;
    if (shown) {
      yield {
        type: 'message',
        role: person.role,
        time,
        text: person.content,
        reasoning,
        bytes: Buffer.byteLength(person.content),
        storedBytes: found.storedBytes,
        messageId: message.id ?? null,
      };
    }
    // A message of calls alone is anchored at its first call.
    (message.tool_calls ?? []).map(flatToolCall).forEach((call, index) =>
      this.pending.set(call.id, {
        name: call.name,
        arguments: call.arguments,
        time,
        ...(!shown && index === 0 && message.id !== undefined ? { messageId: message.id } : {}),
      }),
    );
  }

  *finish(): Generator<ViewItem> {
    yield* this.markersBefore(Number.POSITIVE_INFINITY, null);
    yield* this.unanswered();
    if (this.turn >= 0) yield* this.turnEnd(this.turns[this.turn]!);
  }

  private *markersBefore(seq: number, time: string | null): Generator<ViewItem> {
    while (this.turn + 1 < this.turns.length && this.turns[this.turn + 1]!.startSeq <= seq) {
      yield* this.unanswered();
      if (this.turn >= 0) yield* this.turnEnd(this.turns[this.turn]!);
      this.turn += 1;
    }
    while (this.compaction < this.compactions.length && this.compactions[this.compaction]! < seq) {
      yield* this.unanswered();
      const at = this.compactions[this.compaction]!;
      yield { type: 'compaction', time, summary: this.summaries.get(at) ?? null };
      this.compaction += 1;
    }
  }

  private *turnEnd(turn: { status: string }): Generator<ViewItem> {
    if (turn.status !== 'completed') yield { type: 'turn', status: turn.status };
  }

  private *unanswered(): Generator<ViewItem> {
    for (const call of this.pending.values())
      yield {
        type: 'tool',
        time: call.time,
        call: toolCallView(call, undefined),
        messageIds: call.messageId === undefined ? [] : [call.messageId],
      };
    this.pending.clear();
  }
}

/** What a page's header says of the messages a person sees: how many, of whom, and when the first and last were written. */
interface SeenMessages {
  messages: number;
  user: number;
  assistant: number;
  toolCalls: number;
  /** Unix milliseconds; null where only the session's commit times say when. */
  firstTime: number | null;
  lastTime: number | null;
}

function seenInSummaries(visible: readonly TimedMessage[]): SeenMessages {
  const count = (role: string) => visible.filter((entry) => entry.message.role === role).length;
  return {
    messages: visible.length,
    user: count('user'),
    assistant: count('assistant'),
    toolCalls: visible.reduce((sum, entry) => sum + (entry.message.tool_calls?.length ?? 0), 0),
    firstTime: visible[0]?.time ?? null,
    lastTime: visible.at(-1)?.time ?? null,
  };
}

/** The same counted from a transcript's index, a few numbers a message: a transcript's read always says when it was committed. */
function seenInIndex(index: IndexedTranscript): SeenMessages {
  const seen: SeenMessages = { messages: 0, user: 0, assistant: 0, toolCalls: 0, firstTime: null, lastTime: null };
  for (let at = 0; at < index.length; at += 1) {
    if (!index.seenByPerson(at)) continue;
    seen.messages += 1;
    const role = index.role(at);
    if (role === 'user') seen.user += 1;
    else if (role === 'assistant') seen.assistant += 1;
    seen.toolCalls += index.toolCalls(at).length;
  }
  return seen;
}

function headerOf(
  session: OpenedSession,
  read: SessionRead,
  seen: SeenMessages,
  { platform, workspace, resume }: { platform: Platform; workspace: string | null; resume: string | null | undefined },
): ViewHeader {
  const projection = read.projection;
  const model = [projection.modelRef, projection.modelIdentity].filter((part) => part).join(' · ') || null;
  return {
    id: session.id,
    path: session.path,
    store: session.store,
    // Called what `ls` and `inspect` call it; a title of its own whole (the page has room a column has not).
    title: projection.title ?? projection.displayTitle.title,
    workspace,
    startedAt: isoTime(read.firstCommitAt) ?? (seen.firstTime === null ? null : new Date(seen.firstTime).toISOString()),
    updatedAt: isoTime(read.lastCommitAt) ?? (seen.lastTime === null ? null : new Date(seen.lastTime).toISOString()),
    model,
    counts: {
      messages: seen.messages,
      user: seen.user,
      assistant: seen.assistant,
      toolCalls: seen.toolCalls,
      turns: projection.turns.size,
      compactions: projection.compactions.length,
    },
    // A session Reasonix refuses is resumed by no command.
    resume: read.refusal ? null : resume !== undefined ? resume : resumeCommand(session, workspace, platform),
    status: read.status,
    // A new turn refused is no damage: Reasonix opens the session and the page shows all of it.
    damage: read.problems.filter((problem) => problem.severity === 'error' && problem.code !== 'RX_TURN_REFUSED'),
    tornTailBytes: read.tornTail?.bytes ?? 0,
  };
}

/** `reasonix --resume`: by path for a transcript, by id from the workspace for the CLI's store (docs/format.md §13.1). */
function resumeCommand(session: OpenedSession, workspace: string | null, platform: Platform): string | null {
  if (session.format === 'jsonl') return reasonixResume(session.path, platform);
  if (session.store !== 'sessions-v4') return null;
  const command = reasonixResume(session.id, platform);
  return workspace ? fromFolder(workspace, command, platform) : command;
}

function unreadableView(session: OpenedSession, error: RxError): SessionView {
  const problem = problemFromError(error);
  const header: ViewHeader = {
    id: session.id,
    path: session.path,
    store: session.store,
    title: null,
    workspace: null,
    startedAt: null,
    updatedAt: null,
    model: null,
    counts: { messages: 0, user: 0, assistant: 0, toolCalls: 0, turns: 0, compactions: 0 },
    resume: null,
    status: 'damaged',
    damage: [problem],
    tornTailBytes: 0,
  };
  return {
    header,
    items: (async function* () {})(),
    stoppedBy: () => problem,
    stoppedWith: () => errorFromProblem(problem),
    refusal: error,
  };
}
