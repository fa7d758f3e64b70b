import { parseGoJsonText } from '../../codec/go-json/go-text.js';
import { goMessage } from './jsonl-message.js';

type Json = Record<string, unknown>;

/** A message of a transcript as the import converts it (`goMessage`), with what its reader keeps beside it. */
export interface ImportedMessage<Place> {
  message: Json;
  /** The message as Go writes it (`GoMessage.written`). */
  written: Json;
  /** Where it comes from (a line): a stand-in result is placed at its call's. */
  place: Place;
}

/** The result Reasonix's import writes for a call that no result right after it answers (`interruptedToolResult`). */
export const STAND_IN_RESULT = '[no result: the previous turn was interrupted before this tool call completed]';

interface StoredCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The repairs Reasonix 1.38.11's import of a JSONL transcript makes before it writes the v4 session
 * (docs/format.md §10.1; `NormalizeSessionMessages`), in its order:
 * - a local-only message holding a decision receipt, after an assistant message of the same turn, is that
 *   message's: its receipt joins the assistant message's `decision_receipts`, and it is no message of its own;
 * - an assistant message's calls are answered by the tool messages right after it (local-only ones left out,
 *   and ending the run); a call no result of that run answers gets a stand-in result after the run (by id when
 *   the calls' ids are there and differ, else by place: the calls past the run's length), so a result met later,
 *   or before its call, is a second record for the call and the session is refused (`duplicate transcript record`);
 * - a call with an empty name takes the name of its result in the run;
 * - arguments that are not JSON (not empty) are closed as a cut-off document would be, else made `{}`.
 * Every other message is kept as it is, where it is. Given a message at a time (`push`), it gives back those
 * that are settled: an assistant message waits for what follows it up to the next user or assistant message.
 */
export class ImportRepairs<Place> {
  /** The latest assistant message and what followed it: a receipt after it may still join it. */
  private step: ImportedMessage<Place>[] = [];
  private calling: ImportedMessage<Place> | undefined;
  private results: ImportedMessage<Place>[] = [];

  push(entry: ImportedMessage<Place>): ImportedMessage<Place>[] {
    const { message } = entry;
    const spoken = message.local_only !== true;
    if (spoken && (message.role === 'user' || message.role === 'assistant')) {
      const settled = this.endStep();
      if (message.role === 'assistant') this.step = [entry];
      else settled.push(...this.paired(entry));
      return settled;
    }
    if (this.step.length > 0 && !spoken && isPresent(message.decision_receipt)) {
      this.step[0] = withReceipt(this.step[0]!, message.decision_receipt);
      return [];
    }
    if (this.step.length > 0) {
      this.step.push(entry);
      return [];
    }
    return this.paired(entry);
  }

  /** What is held, settled: the transcript ends here. */
  finish(): ImportedMessage<Place>[] {
    return [...this.endStep(), ...this.settleCall()];
  }

  private endStep(): ImportedMessage<Place>[] {
    const step = this.step;
    this.step = [];
    return step.flatMap((entry) => this.paired(entry));
  }

  /** The pairing of calls with their results, a message at a time. */
  private paired(entry: ImportedMessage<Place>): ImportedMessage<Place>[] {
    if (this.calling && entry.message.role === 'tool' && entry.message.local_only !== true) {
      this.results.push(entry);
      return [];
    }
    const settled = this.settleCall();
    if (entry.message.role === 'assistant' && entry.message.local_only !== true && callsOf(entry.message).length > 0)
      this.calling = entry;
    else settled.push(entry);
    return settled;
  }

  private settleCall(): ImportedMessage<Place>[] {
    const calling = this.calling;
    if (!calling) return [];
    const results = this.results;
    this.calling = undefined;
    this.results = [];
    const calls = repairedCalls(callsOf(calling.message), results);
    return [
      calls ? withCalls(calling, calls) : calling,
      ...results,
      ...unanswered(calls ?? callsOf(calling.message), results).map((call) => standIn(call, calling.place)),
    ];
  }
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The message with `receipt` after its `decision_receipts`, in both of its forms, its fields in Go's order
 * (the field may be new to it).
 */
function withReceipt<Place>(entry: ImportedMessage<Place>, receipt: unknown): ImportedMessage<Place> {
  const held = Array.isArray(entry.message.decision_receipts) ? entry.message.decision_receipts : [];
  const { message } = goMessage({ ...entry.message, decision_receipts: [...held, receipt] });
  if (entry.written === entry.message) return { ...entry, message, written: message };
  // The written form keeps what it holds (a raw field's text), in the order Go gives the fields.
  const written = Object.fromEntries(
    Object.keys(message).map((key) => [key, key === 'decision_receipts' ? message[key] : entry.written[key]]),
  );
  return { ...entry, message, written };
}

function callsOf(message: Json): StoredCall[] {
  return Array.isArray(message.tool_calls) ? (message.tool_calls as StoredCall[]) : [];
}

/** Ids that are there and differ: results answer calls by id, else by place. */
function idsDistinct(calls: readonly StoredCall[]): boolean {
  const seen = new Set<string>();
  for (const { id } of calls) {
    if (id === '' || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

/** The calls with their names taken from their results and their arguments closed; undefined when none changes. */
function repairedCalls(
  calls: readonly StoredCall[],
  results: readonly ImportedMessage<unknown>[],
): StoredCall[] | undefined {
  const byId = idsDistinct(calls);
  const named = new Map<string, string>();
  if (byId)
    for (const { message } of results)
      if (typeof message.name === 'string' && message.name !== '')
        named.set(String(message.tool_call_id ?? ''), message.name);
  let changed = false;
  const repaired = calls.map((call, place) => {
    let { name, arguments: text } = call;
    if (name === '') name = (byId ? named.get(call.id) : stringField(results[place]?.message, 'name')) ?? '';
    // Empty arguments are kept: some gateways send "" for a tool without parameters.
    if (text !== '' && !isGoJson(text)) text = closedJson(text);
    if (name === call.name && text === call.arguments) return call;
    changed = true;
    return { ...call, name, arguments: text };
  });
  return changed ? repaired : undefined;
}

/** The message with its calls replaced, in both of its forms. */
function withCalls<Place>(entry: ImportedMessage<Place>, calls: StoredCall[]): ImportedMessage<Place> {
  const replace = (message: Json): Json => ({
    ...message,
    tool_calls: (message.tool_calls as Json[]).map((call, index) => ({
      ...call,
      name: calls[index]!.name,
      arguments: calls[index]!.arguments,
    })),
  });
  const message = replace(entry.message);
  return { ...entry, message, written: entry.written === entry.message ? message : replace(entry.written) };
}

/** The calls no result of the run answers: by id when ids are distinct, else those past the run's length. */
function unanswered(calls: readonly StoredCall[], results: readonly ImportedMessage<unknown>[]): StoredCall[] {
  if (!idsDistinct(calls)) return calls.slice(results.length);
  const answered = new Set(results.map(({ message }) => String(message.tool_call_id ?? '')));
  return calls.filter((call) => !answered.has(call.id));
}

function standIn<Place>(call: StoredCall, place: Place): ImportedMessage<Place> {
  const { message } = goMessage({ role: 'tool', content: STAND_IN_RESULT, tool_call_id: call.id, name: call.name });
  return { message, written: message, place };
}

function stringField(message: Json | undefined, field: string): string | undefined {
  const value = message?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** Whether Go's `json.Valid` takes the text: one JSON value, white space around it, at most 10,000 levels deep. */
export function isGoJson(text: string): boolean {
  try {
    parseGoJsonText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Arguments cut off mid-stream closed as Reasonix closes them (`closeTruncatedJSON`): a trailing backslash
 * dropped, an open string closed, a dangling `,` dropped or `:` given `null`, open brackets closed; what is
 * still not JSON then is `{}`.
 */
export function closedJson(text: string): string {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') closers.push('}');
    else if (char === '[') closers.push(']');
    else if (char === '}' || char === ']') closers.pop();
  }
  let closed = escaped ? text.slice(0, -1) : text;
  if (inString) closed += '"';
  const trimmed = closed.replace(/[ \t\r\n]+$/, '');
  if (trimmed.endsWith(',')) closed = trimmed.slice(0, -1);
  else if (trimmed.endsWith(':')) closed = `${trimmed}null`;
  closed += closers.reverse().join('');
  return isGoJson(closed) ? closed : '{}';
}
