import * as z from 'zod';
import type { Message } from '../replay/message.js';
import { argumentsAreObject, gateEntry, transcriptGate, type GateVerdict } from '../replay/transcript-gate.js';

/** One change made to what the model is sent, with what was there verbatim. */
export const TurnRepairChangeSchema = z.object({
  /** The message's index in the model view it was made to (the system message is 0). */
  message: z.number().int().nonnegative(),
  messageId: z.string().nullable(),
  /** The tool call changed or answered, as it was; null for a change to the message itself. */
  call: z.string().nullable(),
  what: z.enum(['arguments', 'name', 'id', 'tool calls left out', 'result left out', 'result added', 'result renamed']),
  /** What was there, verbatim (JSON text for a list of calls or a whole message). */
  before: z.string(),
  after: z.string(),
});
export type TurnRepairChange = z.infer<typeof TurnRepairChangeSchema>;

/** What the model is sent after the repair, and every change made to get it. */
export interface TurnRepair {
  /** Reasonix's refusal of the view before the repair. */
  refusal: string;
  messages: Message[];
  changes: TurnRepairChange[];
}

/** What Reasonix sends for a call the log holds no result for (`interruptedToolResult`). */
const NO_RESULT = '[no result: the previous turn was interrupted before this tool call completed]';

/**
 * The model view made one Reasonix takes a new turn after, changing only what its transcript gate
 * refuses: arguments that are not a JSON object become one (`{}` for empty ones, else the text
 * kept under `unparsed_arguments`), a name it cannot repair becomes `unknown_tool`, a blank or
 * repeated call id a fresh one, tool calls on a message not the assistant's are left out; each
 * assistant message's calls are followed by their results in call order (Reasonix's stand-in for
 * a missing one), and a result without its call is left out. Undefined when Reasonix takes a
 * new turn already. Every change is returned with what was there; the caller writes the messages
 * as a `model/context-replace`, so the transcript keeps the originals where a person reads them.
 */
export function repairForNewTurn(view: readonly Message[]): TurnRepair | undefined {
  const verdict = judge(view);
  if (verdict.accepted) return undefined;
  const messages: Message[] = [];
  const changes: TurnRepairChange[] = [];
  const usedIds = new Set(view.flatMap((message) => (message.id ? [message.id] : [])));
  const freshId = (base: string) => {
    let id = base;
    for (let n = 2; usedIds.has(id); n += 1) id = `${base}-${n}`;
    usedIds.add(id);
    return id;
  };
  const change = (
    message: Message,
    call: string | null,
    what: TurnRepairChange['what'],
    before: string,
    after: string,
  ) => changes.push({ message: messages.length, messageId: message.id ?? null, call, what, before, after });
  for (let at = 0; at < view.length; ) {
    const message = view[at]!;
    const calls = message.tool_calls ?? [];
    if (message.role === 'tool') {
      change(message, message.tool_call_id ?? null, 'result left out', JSON.stringify(message), '');
      at += 1;
      continue;
    }
    if (calls.length === 0 || message.role !== 'assistant') {
      if (calls.length > 0) {
        const { tool_calls: _, ...kept } = message;
        change(message, null, 'tool calls left out', JSON.stringify(calls), '');
        messages.push(kept);
      } else messages.push(message);
      at += 1;
      continue;
    }
    let end = at + 1;
    while (view[end]?.role === 'tool') end += 1;
    const results = view.slice(at + 1, end);
    const byId = idsDistinct(calls.map((call) => call.id ?? ''));
    const seen = new Set<string>();
    const repaired = calls.map((call, place) => {
      const id = call.id ?? '';
      const result = byId ? results.findLast((each) => each.tool_call_id === id) : results[place];
      let name = call.name ?? '';
      // Reasonix names an unnamed call by its result; one its result does not name either has none it can send.
      if (name === '') name = result?.name ?? '';
      if (name.trim() === '') {
        change(message, id, 'name', call.name ?? '', 'unknown_tool');
        name = 'unknown_tool';
      }
      let newId = id;
      if (id.trim() === '' || seen.has(id)) {
        newId = freshId(`rxstore-call-${messages.length}-${place}`);
        change(message, id, 'id', id, newId);
      }
      seen.add(newId);
      let args = call.arguments ?? '';
      if (!argumentsAreObject(args)) {
        const after = args.trim() === '' ? '{}' : JSON.stringify({ unparsed_arguments: args });
        change(message, id, 'arguments', args, after);
        args = after;
      }
      return { call: { id: newId, name, arguments: args }, result, was: id };
    });
    messages.push({ ...message, tool_calls: repaired.map(({ call }) => call) });
    const answered = new Set<Message>();
    for (const { call, result, was } of repaired) {
      if (result) {
        answered.add(result);
        if (result.tool_call_id !== call.id || (result.name && result.name !== call.name))
          change(
            result,
            was,
            'result renamed',
            JSON.stringify({ tool_call_id: result.tool_call_id, name: result.name }),
            JSON.stringify({ tool_call_id: call.id, name: call.name }),
          );
        messages.push({ ...result, tool_call_id: call.id, name: call.name });
      } else {
        const stand = {
          role: 'tool',
          id: freshId(`rxstore-result-${call.id}`),
          tool_call_id: call.id,
          name: call.name,
          content: NO_RESULT,
        };
        change(stand, was, 'result added', '', NO_RESULT);
        messages.push(stand);
      }
    }
    for (const result of results)
      if (!answered.has(result))
        change(result, result.tool_call_id ?? null, 'result left out', JSON.stringify(result), '');
    at = end;
  }
  const after = judge(messages);
  // Never hand back a view Reasonix still refuses: that would be a silent wrong answer.
  if (!after.accepted)
    throw new Error(`the repaired model view is still refused by the transcript gate: ${after.reason}`);
  return { refusal: verdict.reason, messages, changes };
}

/** The gate's verdict on a list of messages. */
export function judge(view: readonly Message[]): GateVerdict {
  return transcriptGate(view.map((message) => gateEntry(message)));
}

function idsDistinct(ids: readonly string[]): boolean {
  return ids.every((id) => id !== '') && new Set(ids).size === ids.length;
}
