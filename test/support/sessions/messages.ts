// Messages and the events that record them, as tests lay them down.
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import type { Message } from '../../../src/session/replay/message.js';

/** The event that records one whole message. */
export const complete = (message: object): EventToWrite => ({ kind: 'message/complete', payload: { message } });

/** A tool's result: `id` and the call it answers where given, content `ok` unless `fields` says otherwise. */
export const toolResult = (
  id: string | undefined,
  call: string | undefined,
  fields: Partial<Message> = {},
): Message => ({
  role: 'tool',
  ...(id === undefined ? {} : { id }),
  ...(call === undefined ? {} : { tool_call_id: call }),
  content: 'ok',
  ...fields,
});

/** A message a person typed, as Reasonix writes it: with its id when given, its origin, and its raw content. */
export const typedMessage = (id: string | undefined, content: string) => ({
  role: 'user',
  ...(id ? { id } : {}),
  origin: 'user',
  content,
  raw_content: content,
});
