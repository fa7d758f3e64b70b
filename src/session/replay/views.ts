import { flatToolCall, messageText, type Message } from './message.js';
import type { Projection } from './projection.js';

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
  let previous = Number.NEGATIVE_INFINITY;
  return projection.transcript.map(({ message, seq, batchTime }) => {
    const time = messageTime(message, batchTime, previous);
    previous = time;
    return { message, time, seq };
  });
}

/** A message's time in the canonical transcript, given its batch's commit time and the time of the message before it. */
export function messageTime(message: Message, batchTime: number, previous: number): number {
  return isTime(message.createdAt) ? message.createdAt : Math.max(batchTime, previous + 1);
}

/** A `createdAt` that is a time a Date can hold; anything else is treated as unstamped. */
function isTime(value: unknown): value is number {
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
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

/**
 * The model view as a provider receives it: roles, contents and tool calls in the OpenAI form,
 * without rxstore's and Reasonix's bookkeeping (ids, origins, times), which never reach a model.
 */
export function providerMessages(projection: Projection): ProviderMessage[] {
  return modelView(projection).map((message) => {
    const calls = (message.tool_calls ?? []).map(flatToolCall);
    return {
      role: message.role,
      content: message.content || (calls.length > 0 ? null : ''),
      ...(calls.length > 0
        ? { tool_calls: calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
        : {}),
      ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
      ...(message.name ? { name: message.name } : {}),
    };
  });
}
