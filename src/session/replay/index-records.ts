import { flatToolCall, messageText, parseJsonObject, type Message } from './message.js';
import type { TimedMessage } from './views.js';

/** What every indexed record carries, so a search hit can be traced back to its session. */
export interface RecordContext {
  sessionId: string;
  workspace: string | null;
  title: string | null;
}

/** What every index record carries: its key, the session, its workspace and title, the message it came from. */
export interface RecordBase extends RecordContext {
  /**
   * What the record is of, stable for the life of the session: the session, then the message (its
   * id, or where Reasonix gives none, the event that wrote it and its place in that event), then
   * for a command or a file touched the tool call. A later record with the same key replaces this
   * one; a `removed` record with this key, or with a key this one begins with followed by `/`,
   * removes it.
   */
  key: string;
  /** ISO time of the message the record comes from: its createdAt, else the commit time of the batch that last wrote it. */
  time: string;
  messageId?: string;
}

/**
 * A record taken back (a tombstone): the record with this key, and every record whose key begins
 * with it followed by `/`, are no longer the session's — a message retracted or rewritten takes
 * its commands and files with it; the session's own key (its id) takes every record of it.
 */
export interface RemovedRecord {
  type: 'removed';
  key: string;
  sessionId: string;
}

/** What a stream of records since a cursor gives: a record that adds or replaces by its key, or one that removes. */
export type RecordChange = IndexRecord | RemovedRecord;

/**
 * How a tool call ended, as its result's `tool_execution` records it: `state` (`completed`, `failed`,
 * `cancelled`, …), the shell's `exitCode` (0 included) and `durationMs`; a result without one (file
 * tools) gives `state` from whether it reports an error. A call with no result has none of them.
 */
export interface ToolOutcome {
  state?: string;
  exitCode?: number;
  durationMs?: number;
  /** The id of the tool message holding the result, where it has one: a hit in the output points at it. */
  resultMessageId?: string;
  /** ISO time of that tool message (its createdAt, else the commit time of the batch that last wrote it): when the output was given. */
  resultTime?: string;
}

/** A tool result as a call's record is completed by: its message, and its time (`recordTime`). */
export interface TimedResult {
  message: Message;
  /** Unix milliseconds. */
  time: number;
}

/** One record for a search index: a user prompt, an answer, a command with its output and exit code, a file edit, … */
export type IndexRecord =
  | (RecordBase & { type: 'message'; role: 'user' | 'assistant'; text: string })
  | (RecordBase &
      ToolOutcome & {
        type: 'command';
        tool: string;
        callId: string;
        /** The command line ('' when the call gives none as a string). */
        command: string;
        /** The call's arguments as the model wrote them (JSON): what it said the command is for, its other options. */
        arguments: string;
        output: string;
      })
  | (RecordBase &
      ToolOutcome & {
        type: 'file';
        tool: string;
        callId: string;
        action: 'read' | 'write' | 'edit' | 'notebook-edit' | 'delete-range' | 'delete-symbol' | 'move';
        path: string;
        /** Edits: the span replaced and what replaced it. */
        edits?: { old: string; new: string }[];
        /** delete_range: the lines removed, read from the unified diff in its result. */
        removedLines?: string[];
        destination?: string;
        /** The call's arguments as the model wrote them (JSON): what a write wrote, an edit's spans. */
        arguments: string;
        /** Its result's text: what a read read, what a write or an edit answered. */
        output: string;
      })
  /** Any other tool's call: its arguments as the model wrote them (JSON) and its result's text. */
  | (RecordBase & ToolOutcome & { type: 'call'; tool: string; callId: string; arguments: string; output: string })
  /**
   * A tool's result that answers no call (`loneResultRecord`): it names none, or one no call before it has, or
   * one whose call an earlier result answered. What it says is still a tool's answer in the session. `tool` is
   * the name it gives ('' for none), `callId` the call it names ('' for none).
   */
  | (RecordBase & ToolOutcome & { type: 'result'; tool: string; callId: string; output: string });

const SHELL_TOOLS = new Set(['bash', 'pwsh', 'powershell']);

type Args = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
const firstText = (args: Args, ...names: string[]) =>
  names.map((name) => text(args[name])).find((value) => value !== '') ?? '';

/** A tool result that reports failure: its execution state, or the error text Reasonix writes. */
function failed(result: Message | undefined): boolean {
  // Stryker disable next-line BooleanLiteral: with no result the diff read is '', which has no removed lines
  if (!result) return true;
  // Stryker disable next-line StringLiteral: '' and the replacement both fail the ^error test
  return result.tool_execution?.state === 'failed' || /^error[:\s]/i.test(result.content ?? '');
}

/**
 * How the call ended: what the result's execution record says (`state`, `exitCode`, `durationMs`);
 * a result without one (file tools) is `failed` when it reports an error, as Reasonix words it,
 * else `completed`. No result, no outcome.
 */
function outcomeOf(timed: TimedResult | undefined): ToolOutcome {
  if (!timed) return {};
  const result = timed.message;
  const placed = {
    ...(result.id ? { resultMessageId: result.id } : {}),
    resultTime: new Date(timed.time).toISOString(),
  };
  const execution = result.tool_execution;
  if (!execution) return { state: failed(result) ? 'failed' : 'completed', ...placed };
  return {
    ...placed,
    ...(execution.state !== undefined ? { state: execution.state } : {}),
    ...(typeof execution.exitCode === 'number' ? { exitCode: execution.exitCode } : {}),
    ...(execution.durationMs !== undefined ? { durationMs: execution.durationMs } : {}),
  };
}

/** The `-` lines of a unified diff, without the `---` file header. */
function removedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter((line) => line.startsWith('-') && !line.startsWith('---'))
    .map((line) => line.slice(1));
}

/** A tool call as its assistant message holds it, waiting for the result that completes its record. */
export interface RecordedCall {
  call: { id: string; name: string; arguments: string };
  /** The record fields of the message the call belongs to, with the call's own key. */
  base: RecordBase;
}

/** A key's part: any text, with `/` and `%` escaped, so that a key's parts never run into each other. */
const part = (text: string) => encodeURIComponent(text);

/**
 * A message's place among the messages without an id that one event wrote (the `ordinal` of its
 * key), for messages met in transcript order; 0 for a message with an id.
 */
export function placeCounter(): (seq: number, id: string | undefined) => number {
  const counts = new Map<number, number>();
  return (seq, id) => {
    if (id !== undefined) return 0;
    const ordinal = counts.get(seq) ?? 0;
    counts.set(seq, ordinal + 1);
    return ordinal;
  };
}

/** The key of a session's message: by its id, else by the event that wrote it and its place among that event's messages. */
export function messageKey(
  sessionId: string,
  message: Pick<Message, 'id'>,
  place: { seq: number; ordinal: number },
): string {
  return message.id !== undefined
    ? `${part(sessionId)}/m/${part(message.id)}`
    : `${part(sessionId)}/at/${place.seq}.${place.ordinal}`;
}

/** The key that stands for the whole session: a `removed` record with it takes every record of the session. */
export function sessionKey(sessionId: string): string {
  return part(sessionId);
}

/** A message's time as a record gives it: its createdAt when it is a time, else the commit time of the batch that last wrote it. */
export function recordTime(message: Pick<Message, 'createdAt'>, batchTime: number): number {
  const stamped = message.createdAt;
  return typeof stamped === 'number' && Number.isFinite(stamped) && Math.abs(stamped) <= 8.64e15 ? stamped : batchTime;
}

/** A message of the transcript as records are made of it: when it was written, by which event, and its key. */
export interface KeyedMessage {
  message: Message;
  /** Unix milliseconds (`recordTime`). */
  time: number;
  key: string;
}

/** What a message says (its record, when it is indexed) and the tool calls it makes, each with its key. */
export function recordsOfMessage(
  { message, time, key }: KeyedMessage,
  context: RecordContext,
): { said: IndexRecord | undefined; calls: RecordedCall[] } {
  if (message.local_only || message.origin === 'host') return { said: undefined, calls: [] };
  const base: RecordBase = {
    key,
    ...context,
    time: new Date(time).toISOString(),
    ...(message.id ? { messageId: message.id } : {}),
  };
  let said: IndexRecord | undefined;
  if (message.role === 'user' || message.role === 'assistant') {
    const text = messageText(message);
    if (text.trim() !== '') said = { ...base, type: 'message', role: message.role, text };
  }
  // Two calls of one message with one id (or none) are told apart by their place.
  const used = new Set<string>();
  const calls = (message.tool_calls ?? []).map((raw, index) => {
    const call = flatToolCall(raw);
    const callKey = call.id !== '' && !used.has(call.id) ? `${key}/call/${part(call.id)}` : `${key}/call-at/${index}`;
    used.add(call.id);
    return { call, base: { ...base, key: callKey } };
  });
  return { said, calls };
}

/** Whether a message is a tool result that can complete a call's record: a tool message with a call id, not a local-only record (never sent as a result). */
export function answers(message: Message): string | undefined {
  return message.role === 'tool' && message.tool_call_id && !message.local_only ? message.tool_call_id : undefined;
}

/**
 * The record of a tool call, completed by its result (undefined while none is known): a shell
 * command with its outcome and output, the file a tool read or changed, or any other tool's arguments and result.
 */
export function recordOfCall({ call, base }: RecordedCall, timed: TimedResult | undefined): IndexRecord | undefined {
  const result = timed?.message;
  const args: Args = parseJsonObject(call.arguments) ?? {};
  const file = (
    action: Extract<IndexRecord, { type: 'file' }>['action'],
    extra: Partial<Extract<IndexRecord, { type: 'file' }>> = {},
  ): IndexRecord => ({
    ...base,
    type: 'file',
    tool: call.name,
    callId: call.id,
    action,
    path: firstText(args, 'path', 'file_path', 'notebook_path', 'source'),
    arguments: call.arguments,
    ...extra,
    ...outcomeOf(timed),
    output: result ? messageText(result) : '',
  });
  switch (call.name) {
    case 'read_file':
      return file('read');
    case 'write_file':
      return file('write');
    case 'edit_file':
      return file('edit', { edits: [{ old: text(args.old_string), new: text(args.new_string) }] });
    case 'multi_edit': {
      const edits = Array.isArray(args.edits) ? (args.edits as Args[]) : [];
      return file('edit', { edits: edits.map((edit) => ({ old: text(edit.old_string), new: text(edit.new_string) })) });
    }
    case 'notebook_edit':
      return file('notebook-edit');
    case 'delete_range':
      // Stryker disable next-line StringLiteral,OptionalChaining: neither '' nor the replacement holds a line starting with '-'
      return file('delete-range', { removedLines: failed(result) ? [] : removedLines(result?.content ?? '') });
    case 'delete_symbol':
      return file('delete-symbol');
    case 'move_file':
      return file('move', {
        path: firstText(args, 'source', 'from', 'path'),
        destination: firstText(args, 'destination', 'to', 'target'),
      });
    default:
      // A call without a name is nothing Reasonix could have run.
      if (call.name === '') return undefined;
      if (!SHELL_TOOLS.has(call.name))
        return {
          ...base,
          type: 'call',
          tool: call.name,
          callId: call.id,
          arguments: call.arguments,
          ...outcomeOf(timed),
          output: result ? messageText(result) : '',
        };
      return {
        ...base,
        type: 'command',
        tool: call.name,
        callId: call.id,
        command: firstText(args, 'command', 'script'),
        arguments: call.arguments,
        ...outcomeOf(timed),
        output: result ? messageText(result) : '',
      };
  }
}

/**
 * The record of a tool result that no call takes (see `resultPositions`): its text, keyed as its message is.
 * Undefined for any other message (a host's or a local-only one included, as `recordsOfMessage` leaves them) and
 * for a result that says nothing.
 */
export function loneResultRecord(
  { message, time, key }: KeyedMessage,
  context: RecordContext,
): IndexRecord | undefined {
  if (message.role !== 'tool' || message.local_only || message.origin === 'host') return undefined;
  const output = messageText(message);
  if (output.trim() === '') return undefined;
  return {
    key,
    ...context,
    time: new Date(time).toISOString(),
    ...(message.id ? { messageId: message.id } : {}),
    type: 'result',
    tool: message.name ?? '',
    callId: message.tool_call_id ?? '',
    ...outcomeOf({ message, time }),
    output,
  };
}

/**
 * Transcript entries as records key them. A message Reasonix gave no id is keyed by the event that
 * wrote it and its place among that event's messages without an id: no later event moves it (an
 * upsert or a retract by id never touches it; a retract of '' or a replace takes them all).
 */
export function keyedMessages(
  sessionId: string,
  entries: readonly { message: Message; seq: number; batchTime: number }[],
): (KeyedMessage & { seq: number })[] {
  return withKeys(
    sessionId,
    entries.map(({ message, seq, batchTime }) => ({ message, seq, time: recordTime(message, batchTime) })),
  );
}

/** Entries with their keys: those that have one keep it. */
function withKeys(
  sessionId: string,
  entries: readonly (TimedMessage & { key?: string })[],
): (KeyedMessage & { seq: number })[] {
  const ordinalOf = placeCounter();
  return entries.map((entry) => {
    const ordinal = ordinalOf(entry.seq, entry.message.id);
    return {
      message: entry.message,
      seq: entry.seq,
      time: entry.time,
      key: entry.key ?? messageKey(sessionId, entry.message, { seq: entry.seq, ordinal }),
    };
  });
}

/**
 * The records an indexer stores for a session: what the person typed (`raw_content`) and what the
 * assistant answered, each shell command with its outcome and output, and each file a tool read
 * or changed — edits with the replaced and the new span — each call paired with its result
 * wherever that was committed. System prompts, host-authored messages and local-only records are
 * not indexed. Each record has its `key` (an entry's own, else made from its message id, or the
 * sequence of the event that wrote it); each takes its entry's `time` (`keyedMessages` gives the
 * time records have: createdAt, else the commit time). Past `unansweredFrom`, a call with no result
 * is left out: reading stopped at damage inside its turn, and its result may lie past it.
 */
export function indexRecords(
  given: readonly (TimedMessage & { key?: string })[],
  context: RecordContext,
  options: { unansweredFrom?: number } = {},
): IndexRecord[] {
  const transcript = withKeys(context.sessionId, given);
  const records: IndexRecord[] = [];
  for (const { said, calls, seq } of pairedRecords(transcript, context)) {
    if (said) records.push(said);
    for (const { recorded, result } of calls) {
      if (!result && seq >= (options.unansweredFrom ?? Number.POSITIVE_INFINITY)) continue;
      const record = recordOfCall(recorded, result);
      if (record) records.push(record);
    }
  }
  return records;
}

/**
 * Where the result of each call stands: for each message, for each of its calls, the position of
 * the first result with the call's id that follows it and no earlier call took, -1 for none. An id
 * used again by a later call (which Reasonix refuses, after what precedes it) never lends that call
 * an earlier call's output. The one rule both a transcript held whole (`pairedRecords`) and one
 * streamed against its index (`streamedRecords`) pair by.
 */
export function resultPositions(
  length: number,
  answersAt: (at: number) => string | undefined,
  callIdsAt: (at: number) => readonly string[],
): number[][] {
  const results = new Map<string, number[]>();
  for (let at = 0; at < length; at += 1) {
    const callId = answersAt(at);
    if (callId === undefined) continue;
    const queue = results.get(callId) ?? [];
    queue.push(at);
    results.set(callId, queue);
  }
  const resultAfter = (id: string, at: number): number => {
    const queue = results.get(id);
    while (queue && queue.length > 0 && queue[0]! <= at) queue.shift();
    return queue?.shift() ?? -1;
  };
  return Array.from({ length }, (_, at) => {
    const ids = callIdsAt(at);
    // Most messages make no call: one shared empty list, not an array each (300,000 messages held 28 MiB of them).
    return ids.length === 0 ? NO_RESULTS : ids.map((id) => resultAfter(id, at));
  });
}

/** The results of a message that makes no call; never written to. */
const NO_RESULTS: number[] = [];

/**
 * Each message's record and its calls, each call paired with its result (`resultPositions`); a tool result no
 * call takes is a record of its own (`loneResultRecord`).
 */
export function pairedRecords(
  transcript: readonly (KeyedMessage & { seq: number })[],
  context: RecordContext,
): {
  said: IndexRecord | undefined;
  calls: { recorded: RecordedCall; result: TimedResult | undefined }[];
  seq: number;
}[] {
  const made = transcript.map((entry) => recordsOfMessage(entry, context));
  const positions = resultPositions(
    transcript.length,
    (at) => answers(transcript[at]!.message),
    (at) => made[at]!.calls.map(({ call }) => call.id),
  );
  const taken = new Set(positions.flat());
  return made.map(({ said, calls }, at) => ({
    said: said ?? (taken.has(at) ? undefined : loneResultRecord(transcript[at]!, context)),
    seq: transcript[at]!.seq,
    calls: calls.map((recorded, index) => {
      const result = positions[at]![index]!;
      return { recorded, result: result < 0 ? undefined : transcript[result] };
    }),
  }));
}
