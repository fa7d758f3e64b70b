import { z } from 'zod';
import { MessageSchema } from './message.js';
import { StrictMessageSchema } from './strict-message.js';

const uint = z.number().int().nonnegative();

/**
 * The payload shapes of the event kinds rxstore replays (spec §7.3, §7.4), built twice from one
 * description: loosely, to read whatever is there, and strictly, as Reasonix 1.38.11 decodes them
 * (any unknown key, at any depth, makes it refuse the whole session).
 */
function payloadShapes<M extends z.ZodType>(strict: boolean, message: M) {
  const object = <S extends z.core.$ZodLooseShape>(shape: S) => (strict ? z.strictObject(shape) : z.looseObject(shape)) as z.ZodObject<S>;
  const messages = z.array(message);
  const historyReplace = object({ messages, reason: z.string().optional(), sourceSequences: z.array(uint).nullable().optional() });
  return {
    'message/complete': object({ message }),
    'message/upsert': object({ message }),
    'message/retract': object({ messageIds: z.array(z.string()).min(1), reason: z.string().optional() }),
    'history/replace': historyReplace,
    'model/context-replace': historyReplace,
    compaction: object({ messages, trigger: z.string().optional(), sourceSequences: z.array(uint).nullable().optional() }),
    'legacy/import': object({
      source: z.record(z.string(), z.unknown()),
      messages,
      goal: z.unknown().optional(),
      modelRef: z.string().optional(),
      modelIdentity: z.string().optional(),
    }),
    'session/title': object({ title: z.string() }),
    'session/config': object({ modelRef: z.string(), modelIdentity: z.string().optional() }),
    'turn/end': object({ status: z.enum(['completed', 'failed', 'interrupted']) }),
    'assistant/attempt': object({
      id: z.string().min(1),
      messageId: z.string().optional(),
      action: z.enum(['begin', 'discard', 'commit']),
      attempt: z.number().int().optional(),
      max: z.number().int().optional(),
      reason: z.string().optional(),
    }),
  };
}

export const PayloadSchemas = payloadShapes(false, MessageSchema);
export const StrictPayloadSchemas = payloadShapes(true, StrictMessageSchema);
export type ReplayedKind = keyof typeof PayloadSchemas;
export type Payload<K extends ReplayedKind> = z.infer<(typeof PayloadSchemas)[K]>;

export function isReplayedKind(kind: string): kind is ReplayedKind {
  return Object.hasOwn(PayloadSchemas, kind);
}
