import { flatToolCall, messageText, type Message } from './message.js';
import type { Projection } from './projection.js';
import type { TranscriptEntry } from './transcript-index.js';

/** A message of the canonical transcript with its resolved time. */
export interface TimedMessage {
  message: Message;
  /** Unix milliseconds: `createdAt` where stamped, else the commit time (see `canonicalTranscript`). */
  time: number;
  seq: number;
}

/**
 * The canonical transcript: every message the log holds, compacted ones included, in order.
 * A message without `createdAt` takes its batch's commit time, and sits at least 1 ms after the
 * message before it, so that turns committed in the same instant stay distinct and ordered.
 */
export function canonicalTranscript(projection: Projection): TimedMessage[] {
  return projection.transcript.map(transcriptClock());
}

/**
 * What times the canonical transcript's messages, given them one after another in order (as
 * `canonicalTranscript` times them): each message's time follows from the one before it.
 */
export function transcriptClock(): (entry: TranscriptEntry) => TimedMessage {
  let previous = Number.NEGATIVE_INFINITY;
  return ({ message, seq, batchTime }) => {
    const time = messageTime(message, batchTime, previous);
    previous = time;
    return { message, time, seq };
  };
}

/** A message's time in the canonical transcript, given its batch's commit time and the time of the message before it. */
export function messageTime(message: Message, batchTime: number, previous: number): number {
  return isTime(message.createdAt) ? message.createdAt : Math.max(batchTime, previous + 1);
}

/** A `createdAt` that is a time a Date can hold; anything else is treated as unstamped. */
function isTime(value: unknown): value is number {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: createdAt is parsed as a number: Number.isFinite alone decides
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 8.64e15;
}

/** What the model is sent: the transcript with compaction checkpoints applied and local-only records left out. */
export function modelView(projection: Projection): Message[] {
  return projection.modelMessages.slice();
}

/** A message as a person reads it. */
export interface PersonMessage {
  id?: string;
  role: string;
  content: string;
  time: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  name?: string;
}

/** Whether a person sees a message: not the host's session-context messages, not local-only records. */
export function seenByPerson(message: Pick<Message, 'origin' | 'local_only'>): boolean {
  return message.origin !== 'host' && !message.local_only;
}

/**
 * The person's view: what was said, without the host's session-context messages and local-only
 * records, with what the person typed (`raw_content`) preferred over what the model was sent.
 */
export function personView(projection: Projection): PersonMessage[] {
  return canonicalTranscript(projection).flatMap((timed) => personMessage(timed) ?? []);
}

/** One transcript message as a person reads it; undefined for what a person does not see. */
export function personMessage({ message, time }: Pick<TimedMessage, 'message' | 'time'>): PersonMessage | undefined {
  if (!seenByPerson(message)) return undefined;
  return {
    ...(message.id !== undefined ? { id: message.id } : {}),
    role: message.role,
    content: messageText(message),
    time: new Date(time).toISOString(),
    ...(message.tool_calls?.length ? { toolCalls: message.tool_calls.map(flatToolCall) } : {}),
    ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
    ...(message.name ? { name: message.name } : {}),
  };
}

/** A message in the OpenAI chat-completions shape Reasonix sends its provider. */
export interface ProviderMessage {
  role: string;
  content: string | null;
  /** A call's `id` is left out when it has none, as Reasonix leaves it out. */
  tool_calls?: { id?: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

/**
 * The model view as a provider receives it, as Reasonix 1.38.11 builds its request (measured
 * against the binary: test/model-view-matches-reasonix and provider-request-matches-reasonix):
 * roles, contents and tool calls in the OpenAI form, without rxstore's and Reasonix's bookkeeping
 * (ids, origins, times). Each assistant message's calls are followed by their results, in call
 * order, from the tool messages right after it: a call without one gets Reasonix's stand-in
 * result, and a tool message anywhere else is left out. A result is named by its call; no other
 * message keeps a name; `provider_content`, when not empty, is sent in place of `content`.
 */
export function providerMessages(projection: Projection): ProviderMessage[] {
  const view = modelView(projection);
  const sent: ProviderMessage[] = [];
  for (let at = 0; at < view.length; at += 1) {
    const message = view[at]!;
    if (message.role === 'tool') continue;
    const calls = (message.tool_calls ?? []).map(flatToolCall);
    sent.push({
      role: message.role,
      content: sentContent(message) || (calls.length > 0 ? null : ''),
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((call) => ({
              ...(call.id ? { id: call.id } : {}),
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : {}),
    });
    // Stryker disable next-line ConditionalExpression: a tool message after a message without calls is left out either way (line 103 skips it)
    if (calls.length === 0) continue;
    // The results right after the calls, the last for a call winning; whatever follows them is not theirs.
    const results = new Map<string, Message>();
    while (view[at + 1]?.role === 'tool') {
      at += 1;
      results.set(view[at]!.tool_call_id ?? '', view[at]!);
    }
    for (const call of calls) {
      const result = results.get(call.id);
      sent.push({
        role: 'tool',
        content: result ? sentContent(result) : NO_RESULT,
        ...(call.id ? { tool_call_id: call.id } : {}),
        name: call.name,
      });
    }
  }
  return sent;
}

/** What Reasonix sends for a call the log holds no result for. */
const NO_RESULT = '[no result: the previous turn was interrupted before this tool call completed]';

function sentContent(message: Message): string | null {
  return message.provider_content || (message.content ?? null);
}
