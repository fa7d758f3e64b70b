import { parseGoJsonText } from '../../codec/go-json/go-text.js';
import * as z from 'zod';
import type { Problem } from '../../errors/index.js';

/**
 * What Reasonix's transcript gate reads of a tool call (internal/provider/transcript_gate.go): its
 * id and name as stored, and whether its arguments are a JSON object.
 */
export const GateCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The arguments decode, as Go decodes them, into a JSON object (`{}` included; `null`, `[]`, `""`, `"  "` not). */
  object: z.boolean(),
});
export type GateCall = z.infer<typeof GateCallSchema>;

/** What the gate reads of a message of the model view: its role, its tool calls, the call it answers. */
export const GateMessageSchema = z.object({
  role: z.string(),
  calls: z.array(GateCallSchema).optional(),
  toolCallId: z.string().optional(),
  name: z.string().optional(),
});
export type GateMessage = z.infer<typeof GateMessageSchema>;

/**
 * Where a part of a model view starts: its first message's index in the whole view, and in the
 * list the gate checks after its repairs (results dropped or added before it move that one).
 */
export const GatePlaceSchema = z.object({
  raw: z.number().int().nonnegative(),
  paired: z.number().int().nonnegative(),
});
export type GatePlace = z.infer<typeof GatePlaceSchema>;

/**
 * What a later part of the view is judged with, so the gate need not see the whole view again:
 * the open end (the last assistant message with calls, when only results follow it: more results
 * may come) and where it starts. A view the gate accepted has nothing else pending past it.
 */
export const GateCarrySchema = GatePlaceSchema.extend({ tail: z.array(GateMessageSchema) });
export type GateCarry = z.infer<typeof GateCarrySchema>;

const START: GatePlace = { raw: 0, paired: 0 };

/** Whether Reasonix takes a new turn in the session, and, when not, its reason as it words it. */
export type GateVerdict =
  | { accepted: true }
  | {
      accepted: false;
      /** Reasonix's words, after `error: ` (`transcript gate: tool arguments must be a JSON object at message 1`). */
      reason: string;
      /** The message Reasonix names, counted in the list it checks (the system message is message 0). */
      index: number | undefined;
    };

/** Whether tool-call arguments decode into a JSON object as Go's `json.Unmarshal` into a map decodes them (`null` gives no map). */
export function argumentsAreObject(text: string): boolean {
  try {
    const value = parseGoJsonText(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    // JSON.parse's SyntaxError or Go's max depth: not a JSON object.
    return false;
  }
}

/**
 * Whether Reasonix 1.38.11 takes a new turn in a session whose model view is `view`, as its last
 * check before a request decides (`ValidateModelTranscript`): every call's arguments a JSON
 * object; then, after the repairs it makes on the request's copy (empty call names taken from
 * their results, results put in call order with a stand-in for a missing one, a result without
 * its call dropped, an empty call id given a positional one), every call on an assistant message
 * with an id and a name, no id twice in one message, each result answering a call. `followers`
 * messages come after the view in the request (the new turn's host context and user message).
 *
 * The view is walked twice, front to back, and nothing of it is held but an assistant message with
 * its results: a view made as it is read (`GateColumns`) is judged in memory that does not grow with it.
 */
export function transcriptGate(view: Iterable<GateMessage>, from: GatePlace = START, followers = 2): GateVerdict {
  let at = from.raw;
  for (const message of view) {
    if (message.calls?.some((call) => !call.object)) return refused('tool arguments must be a JSON object', at);
    at += 1;
  }
  const pending = new Map<string, string>();
  let place = from.paired;
  const judge = (message: GateMessage): GateVerdict | undefined => {
    const at = place;
    place += 1;
    if (message.role !== 'tool' && pending.size > 0) return refused('unanswered tool calls before message', at);
    for (const call of message.calls ?? []) {
      if (message.role !== 'assistant' || call.id.trim() === '' || call.name.trim() === '')
        return refused('invalid tool identity', at);
      if (pending.has(call.id)) return refused('duplicate call ID', at);
      pending.set(call.id, call.name);
    }
    if (message.role === 'tool') {
      const name = pending.get(message.toolCallId ?? '');
      if (name === undefined || (message.name && message.name !== name))
        return refused('orphan or mismatched result', at);
      pending.delete(message.toolCallId ?? '');
    }
    return undefined;
  };
  const positioned = withPositionalIds(from.paired);
  let verdict: GateVerdict | undefined;
  pairResults(view, (message) => {
    verdict = judge(positioned(message));
    return verdict === undefined;
  });
  for (let follower = 0; follower < followers && !verdict; follower += 1) verdict = judge({ role: 'user' });
  if (verdict) return verdict;
  return pending.size > 0
    ? { accepted: false, reason: 'transcript gate: unanswered tool calls', index: undefined }
    : { accepted: true };
}

/**
 * The problem of a session Reasonix opens but takes no new turn in, with its reason in its words;
 * undefined when it takes one. `file` is the log (or transcript) the session is read from.
 */
export function newTurnProblem(verdict: GateVerdict, file: string): Problem | undefined {
  if (verdict.accepted) return undefined;
  return {
    code: 'RX_TURN_REFUSED',
    severity: 'error',
    message: `Reasonix opens the session but refuses every new turn in it ("${verdict.reason}"); \`rxstore salvage\` writes a copy it goes on with`,
    data: { file, ...(verdict.index !== undefined ? { messageIndex: verdict.index } : {}) },
  };
}

/** The facts the gate reads of a stored message; null for one it passes over (no tool calls, not a result). */
export function gateFacts(message: {
  role: string;
  tool_calls?: readonly { id?: string; name?: string; arguments?: string }[] | null;
  tool_call_id?: string;
  name?: string;
}): GateMessage | null {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0 && message.role !== 'tool') return null;
  return {
    role: message.role,
    // Reasonix reads the flat fields only: OpenAI's nested form has, to it, no name and no arguments.
    ...(calls.length > 0
      ? {
          calls: calls.map((call) => ({
            id: call.id ?? '',
            name: call.name ?? '',
            object: argumentsAreObject(call.arguments ?? ''),
          })),
        }
      : {}),
    ...(message.tool_call_id !== undefined ? { toolCallId: message.tool_call_id } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
  };
}

/** A stored message as an entry of the list the gate judges: one it passes over stands as a message with no facts. */
export function gateEntry(message: Parameters<typeof gateFacts>[0]): GateMessage {
  return gateFacts(message) ?? { role: '' };
}

/** What a view ending as `view` (starting at `from`) carries to the gate's judgement of what follows it. */
export function gateCarry(view: readonly GateMessage[], from: GatePlace = START): GateCarry {
  let start = view.length;
  while (start > 0 && view[start - 1]!.role === 'tool') start -= 1;
  const open = start > 0 && view[start - 1]!.role === 'assistant' && (view[start - 1]!.calls?.length ?? 0) > 0;
  start = open ? start - 1 : view.length;
  return {
    raw: from.raw + start,
    paired: from.paired + pairedLength(view.slice(0, start)),
    tail: view.slice(start),
  };
}

function refused(what: string, index: number): GateVerdict {
  return {
    accepted: false,
    reason: `transcript gate: ${what} ${what.endsWith('message') ? '' : 'at message '}${index}`,
    index,
  };
}

/** Ids that are there and differ: results are then matched to calls by id, else by place. */
function idsDistinct(calls: readonly GateCall[]): boolean {
  const seen = new Set<string>();
  for (const call of calls) {
    if (call.id === '' || seen.has(call.id)) return false;
    seen.add(call.id);
  }
  return true;
}

/** How many messages the request's copy of `view` holds after Reasonix's repairs (`pairResults`). */
function pairedLength(view: readonly GateMessage[]): number {
  let length = 0;
  pairResults(view, () => {
    length += 1;
    return true;
  });
  return length;
}

/**
 * The request's copy as Reasonix repairs it, given to `take` a message at a time until it says
 * false: each assistant message's calls, their empty names taken from their results, followed by
 * one result a call (its own, else a stand-in); a result anywhere else is dropped. Made as the
 * view is read: an assistant message with calls waits for the results that follow it.
 */
function pairResults(view: Iterable<GateMessage>, take: (message: GateMessage) => boolean): void {
  let calling: GateMessage | undefined;
  let results: GateMessage[] = [];
  for (const message of view) {
    if (calling && message.role === 'tool') {
      results.push(message);
      continue;
    }
    if (calling && !repaired(calling, results, take)) return;
    calling = undefined;
    if (message.role === 'assistant' && (message.calls?.length ?? 0) > 0) {
      calling = message;
      results = [];
    } else if (message.role !== 'tool' && !take(message)) return;
  }
  if (calling) repaired(calling, results, take);
}

/** An assistant message with calls and the results that follow it, as Reasonix repairs them, given to `take`. */
function repaired(
  message: GateMessage,
  results: readonly GateMessage[],
  take: (message: GateMessage) => boolean,
): boolean {
  const byId = idsDistinct(message.calls!);
  const calls = namesFromResults(message.calls!, results, byId);
  if (!take({ ...message, calls })) return false;
  for (const [place, call] of calls.entries()) {
    // By id, the last result of an id is its call's (a map keyed by id keeps the last).
    const result = byId ? results.findLast((each) => each.toolCallId === call.id) : results[place];
    // A result keeps what it is, but answers its call by the call's id and name.
    const answer: GateMessage = result
      ? { ...result, toolCallId: call.id, name: call.name }
      : { role: 'tool', toolCallId: call.id, name: call.name };
    if (!take(answer)) return false;
  }
  return true;
}

/** Calls with an empty name named by their result (by id when ids are distinct, else by place). */
function namesFromResults(calls: readonly GateCall[], results: readonly GateMessage[], byId: boolean): GateCall[] {
  if (!calls.some((call) => call.name === '')) return [...calls];
  const named = new Map<string, string>();
  if (byId) for (const result of results) if (result.name) named.set(result.toolCallId ?? '', result.name);
  return calls.map((call, place) =>
    call.name !== '' ? call : { ...call, name: (byId ? named.get(call.id) : results[place]?.name) ?? '' },
  );
}

/**
 * Empty call ids given the positional id Reasonix gives them for the check (`legacy-<message>-<call>`),
 * and each result without an id given the first such call of its name: a function given the
 * repaired messages in order, from the message numbered `from`.
 */
function withPositionalIds(from: number): (message: GateMessage) => GateMessage {
  let unnamed: GateCall[] = [];
  let at = from;
  return (message) => {
    const place = at;
    at += 1;
    if ((message.calls?.length ?? 0) > 0) {
      unnamed = [];
      const calls = message.calls!.map((call, index) => {
        if (call.id !== '') return call;
        const given = { ...call, id: `legacy-${place}-${index}` };
        unnamed.push(given);
        return given;
      });
      return { ...message, calls };
    }
    if (message.role === 'tool' && !message.toolCallId) {
      const match = unnamed.findIndex((call) => call.name === (message.name ?? ''));
      if (match >= 0) {
        const [call] = unnamed.splice(match, 1);
        return { ...message, toolCallId: call!.id };
      }
    }
    return message;
  };
}
