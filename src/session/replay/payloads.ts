import * as z from 'zod';
import { goBool, goInt, goPointer, goRaw, goSlice, goString, goStruct, goUint } from '../../codec/go-json/go-decode.js';
import { MessageSchema, type Message } from './message.js';
import { StrictMessageSchema } from './strict-message.js';
import { parseGoJson } from '../../codec/go-json/go-text.js';
import { goLiteralFieldsOf, goLiteralRefusalOfParsed, type GoLiteralFields } from '../../codec/go-json/go-literals.js';
import { firstIssue } from '../../codec/first-issue.js';
import { compiledOnFirstUse } from '../../codec/compiled-schema.js';

// Loose: the strict decoding has judged the range already.
const uint = z.number();

/**
 * The payload shapes of the event kinds whose content rxstore uses (docs/format.md §7.3, §7.4), read
 * loosely: whatever is there, typed where it is used. What Reasonix 1.38.11 accepts is decided
 * by `decodePayload`.
 */
function looseShapes<M extends z.ZodType<Message, unknown>>(message: M) {
  const messages = z.array(message);
  const historyReplace = z.looseObject({
    messages,
    reason: z.string().optional(),
    sourceSequences: z.array(uint).nullable().optional(),
  });
  return {
    'message/complete': z.looseObject({ message }),
    'message/upsert': z.looseObject({ message }),
    'message/retract': z.looseObject({ messageIds: z.array(z.string()), reason: z.string().optional() }),
    'history/replace': historyReplace,
    'model/context-replace': historyReplace,
    compaction: z.looseObject({
      messages,
      trigger: z.string().optional(),
      sourceSequences: z.array(uint).nullable().optional(),
    }),
    'legacy/import': z.looseObject({
      source: z.record(z.string(), z.unknown()).optional(),
      messages,
      goal: z.unknown().optional(),
      modelRef: z.string().optional(),
      modelIdentity: z.string().optional(),
    }),
    'session/title': z.looseObject({ title: z.string().default('') }),
    'session/config': z.looseObject({ modelRef: z.string(), modelIdentity: z.string().optional() }),
    'turn/end': z.looseObject({ status: z.enum(['completed', 'failed', 'interrupted']) }),
    'assistant/attempt': z.looseObject({ id: z.string(), action: z.string() }),
  };
}

export const PayloadSchemas = looseShapes(MessageSchema);

/**
 * A message `StrictMessageSchema` decoded already: of the loose shape's types but for Go's zero role,
 * filled in. Checking it field by field again took half the time of replaying a long history.
 */
// Stryker disable next-line ConditionalExpression: the Go-compatible decoder before it gives an object for every message, or refuses the payload
const DecodedMessageSchema = z
  .custom<Message>((value) => typeof value === 'object' && value !== null)
  .transform((message) => {
    message.role ??= '';
    return message;
  });
/** `PayloadSchemas` for payloads `decodePayload` accepted: their messages are not checked a second time. */
export const DecodedPayloadSchemas = looseShapes(DecodedMessageSchema);
export type ReplayedKind = keyof typeof PayloadSchemas;
export type Payload<K extends ReplayedKind> = z.infer<(typeof PayloadSchemas)[K]>;

export function isReplayedKind(kind: string): kind is ReplayedKind {
  return Object.hasOwn(PayloadSchemas, kind);
}

const struct = <S extends Record<string, z.ZodType>>(shape: S) => goStruct(shape, 'refuse');
const messageList = goSlice(StrictMessageSchema);
const toolFields = {
  id: goString,
  name: goString,
  args: goString,
  runState: goString,
  diagnostic: goRaw,
  resolvedName: goString,
  capabilityId: goString,
  readOnly: goBool,
  truncated: goBool,
  durationMs: goInt,
  startedAt: goInt,
  endedAt: goInt,
  partial: goBool,
  argChars: goInt,
  refreshed: goBool,
  parentId: goString,
  attemptId: goString,
  subagentRef: goString,
  subagentStatus: goString,
  subagentErrorCode: goString,
  subagentRetryable: goBool,
  diff: goString,
  added: goInt,
  removed: goInt,
  profile: goRaw,
  execution: goRaw,
  presentedFiles: goSlice(struct({ path: goString, description: goString })),
  workspaceMutation: goBool,
  workspacePaths: goSlice(goString),
  workspaceAllPaths: goBool,
};
const todo = struct({ content: goString, status: goString });

/**
 * The struct each kind's payload is decoded into by Reasonix 1.38.11 (internal/session
 * projection.go, the `project*` functions; field lists as the binary carries them), each
 * decoded with unknown fields refused and nothing after the value.
 */
export const StrictPayloadSchemas = {
  'message/complete': struct({ message: goPointer(StrictMessageSchema) }),
  'message/upsert': struct({ message: goPointer(StrictMessageSchema) }),
  'message/retract': struct({ messageIds: goSlice(goString), reason: goString }),
  'history/replace': struct({ messages: messageList, reason: goString, sourceSequences: goSlice(goUint) }),
  'model/context-replace': struct({ messages: messageList, reason: goString, sourceSequences: goSlice(goUint) }),
  compaction: struct({ messages: messageList, trigger: goString, sourceSequences: goSlice(goUint) }),
  'legacy/import': struct({
    source: struct({
      path: goString,
      size: goInt,
      sha256: goString,
      version: goString,
      legacyHeadId: goString,
    }),
    messages: messageList,
    goal: goRaw,
    modelRef: goString,
    modelIdentity: goString,
  }),
  'session/title': struct({ title: goString }),
  'session/config': struct({ modelRef: goString, modelIdentity: goString }),
  'turn/end': struct({ status: goString }),
  'assistant/attempt': struct({
    id: goString,
    messageId: goString,
    action: goString,
    attempt: goInt,
    max: goInt,
    reason: goString,
  }),
  'step/start': struct({ id: goString, status: goString }),
  'step/end': struct({ id: goString, status: goString }),
  'tool/call': struct(toolFields),
  'tool/start': struct({ id: goString, name: goString }),
  'tool/result': struct({
    ...toolFields,
    error: goString,
    output: goString,
    state: goString,
    todos: goSlice(todo),
    todoWritten: goBool,
  }),
  'todo/write': struct({ todos: goSlice(todo) }),
  'interaction/created': struct({
    id: goString,
    toolCallId: goString,
    kind: goString,
    state: goString,
    sessionId: goString,
    headId: goString,
    turnId: goString,
    runtimeEpoch: goString,
  }),
  'interaction/resolved': struct({ id: goString, state: goString }),
  'runtime/recovery': struct({
    state: goString,
    call_id: goString,
    attempt_id: goString,
    requires_user_decision: goBool,
    read_only: goBool,
    phase: goString,
    reason: goString,
    next_attempt_at: goInt,
    waited_ms: goInt,
    wait_budget_ms: goInt,
    waiting: goBool,
  }),
} as const;

type Value = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : '');
// Stryker disable next-line ConditionalExpression: the Go-compatible decoder makes a null field its zero value (left out), so no null reaches has
const has = (value: unknown) => value !== undefined && value !== null;
const TERMINAL_TURN = new Set(['completed', 'failed', 'interrupted']);
const ATTEMPT_ACTIONS = new Set(['begin', 'discard', 'commit']);
const TODO_STATUSES = new Set(['pending', 'in_progress', 'completed']);
const TERMINAL_INTERACTION = new Set(['answered', 'rejected', 'cancelled', 'unavailable']);

/** The checks Reasonix makes after decoding (projection.go); each returns why it refuses, if it does. */
const CHECKS: Partial<Record<keyof typeof StrictPayloadSchemas, (value: Value) => string | undefined>> = {
  'message/complete': (value) =>
    text((value.message as Value | undefined)?.id) === '' ? 'the message is missing or has no id' : undefined,
  'message/upsert': (value) =>
    text((value.message as Value | undefined)?.id) === '' ? 'the message is missing or has no id' : undefined,
  'message/retract': (value) => {
    const ids = (value.messageIds as unknown[] | null | undefined) ?? [];
    if (ids.length === 0) return 'empty messageIds';
    const seen = new Set<string>();
    for (const id of ids.map(text)) {
      if (id === '' || id.trim() !== id || seen.has(id)) return 'invalid or duplicate message id';
      seen.add(id);
    }
    return undefined;
  },
  'history/replace': (value) => (has(value.messages) ? undefined : 'messages is missing'),
  'model/context-replace': (value) => (has(value.messages) ? undefined : 'messages is missing'),
  compaction: (value) => (has(value.messages) ? undefined : 'messages is missing'),
  'legacy/import': (value) => (has(value.messages) ? undefined : 'messages is missing'),
  'session/config': (value) => (text(value.modelRef).trim() === '' ? 'modelRef is blank' : undefined),
  'turn/end': (value) =>
    TERMINAL_TURN.has(text(value.status))
      ? undefined
      : `status ${JSON.stringify(text(value.status))} is not completed, failed or interrupted`,
  'assistant/attempt': (value) =>
    text(value.id) === ''
      ? 'id is empty'
      : ATTEMPT_ACTIONS.has(text(value.action))
        ? undefined
        : `action ${JSON.stringify(text(value.action))} is not begin, discard or commit`,
  'step/start': (value) => (text(value.id) === '' ? 'id is empty' : undefined),
  'step/end': (value) => (text(value.id) === '' ? 'id is empty' : undefined),
  'tool/call': (value) => (text(value.id) === '' || text(value.name) === '' ? 'id or name is empty' : undefined),
  'tool/start': (value) => (text(value.id) === '' || text(value.name) === '' ? 'id or name is empty' : undefined),
  'tool/result': (value) => (text(value.id) === '' || text(value.name) === '' ? 'id or name is empty' : undefined),
  'todo/write': (value) => {
    if (!has(value.todos)) return 'todos must be an array';
    const seen = new Set<string>();
    for (const [index, item] of (value.todos as (Value | null)[]).entries()) {
      // Stryker disable next-line OptionalChaining: a todo that is null is decoded as an empty one, never null (now a rule Reasonix judges)
      const content = text(item?.content);
      // Stryker disable next-line MethodExpression: a content of only spaces fails the trim test that follows anyway
      if (content.trim() === '' || content.trim() !== content || seen.has(content))
        return `todos[${index}].content is invalid`;
      seen.add(content);
      // Stryker disable next-line OptionalChaining: a null item is refused by the content test first
      if (!TODO_STATUSES.has(text(item?.status))) return `todos[${index}].status is invalid`;
    }
    return undefined;
  },
  'interaction/created': (value) =>
    text(value.id) === '' || !['', 'pending'].includes(text(value.state))
      ? 'id is empty or state is not pending'
      : undefined,
  'interaction/resolved': (value) =>
    text(value.id) !== '' && TERMINAL_INTERACTION.has(text(value.state))
      ? undefined
      : 'id is empty or state is not answered, rejected, cancelled or unavailable',
};

/** Each kind's schema compiled (a whole read decodes a payload per event): see codec/compiled-schema.ts. */
const COMPILED_PAYLOAD_SCHEMAS = Object.fromEntries(
  Object.entries(StrictPayloadSchemas).map(([kind, schema]) => [kind, compiledOnFirstUse(schema)]),
) as { [Kind in keyof typeof StrictPayloadSchemas]: () => (typeof StrictPayloadSchemas)[Kind] };

/** Each kind's integer fields, which Go refuses written as `1.0` or `1e0` (docs/format.md §7.2). */
const PAYLOAD_LITERALS = Object.fromEntries(
  Object.entries(StrictPayloadSchemas).map(([kind, schema]) => [kind, goLiteralFieldsOf(schema)]),
) as Record<keyof typeof StrictPayloadSchemas, GoLiteralFields>;

/**
 * `submission/accepted` (read even when optional): its own receipt decoder, then its checks. Decoded as
 * Go's plain `json.Unmarshal` does, unknown keys ignored; the accepted attachments' digests are one string
 * (joined with commas).
 */
const SubmissionReceiptSchema = goStruct(
  {
    fingerprintVersion: goInt,
    acceptedAttachmentDigests: goString,
    sessionId: goString,
    submissionId: goString,
    fingerprint: goString,
    turnId: goString,
    messageId: goString,
  },
  'drop',
);
const RECEIPT_LITERALS = goLiteralFieldsOf(SubmissionReceiptSchema);

/** What Reasonix 1.38.11 makes of one event's payload. */
export type PayloadVerdict =
  /** The kind's payload is never decoded (`turn/start`, optional kinds it does not know). */
  | { state: 'unread' }
  /** Accepted; `value` is the payload with its keys as Reasonix's fields name them. */
  | { state: 'ok'; value: unknown }
  | { state: 'refused'; reason: string; damaged: boolean };

/** The first problem zod found, in the words Go's decoder would use where they differ. */
function describe(error: z.ZodError): string {
  const unknown = error.issues.find((candidate) => candidate.code === 'unrecognized_keys');
  if (unknown?.code !== 'unrecognized_keys') return firstIssue(error, null);
  const path = unknown.path.map(String).join('.');
  return `unknown field ${JSON.stringify(unknown.keys[0])}${path ? ` in ${path}` : ''}`;
}

function parseJson(
  bytes: Buffer | undefined,
  parsed?: unknown,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (parsed !== undefined) return { ok: true, value: parsed };
  if (!bytes || bytes.length === 0) return { ok: false, reason: 'unexpected EOF' };
  try {
    return { ok: true, value: parseGoJson(bytes) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/**
 * Decodes an event's payload as Reasonix 1.38.11 does when it replays the log (internal/session
 * projection.go `strictPayload` and the `project*` functions): the kind's struct with unknown
 * fields refused, an empty payload refused, then the kind's checks. `plan/state` and `goal/state`
 * need only a JSON object, `diagnostic` only valid JSON (or nothing); `turn/start` and optional
 * kinds Reasonix does not know are not read at all. `parsed` saves parsing the bytes again.
 */
export function decodePayload(kind: string, bytes: Buffer | undefined, parsed?: unknown): PayloadVerdict {
  if (kind === 'plan/state' || kind === 'goal/state') {
    const json = parseJson(bytes, parsed);
    const isObject = json.ok && typeof json.value === 'object' && json.value !== null && !Array.isArray(json.value);
    return isObject
      ? { state: 'ok', value: json.ok ? json.value : undefined }
      : { state: 'refused', reason: 'not a JSON object', damaged: true };
  }
  if (kind === 'diagnostic') {
    if (!bytes || bytes.length === 0) return { state: 'ok', value: undefined };
    const json = parseJson(bytes, parsed);
    return json.ok ? { state: 'ok', value: json.value } : { state: 'refused', reason: json.reason, damaged: true };
  }
  if (kind === 'submission/accepted') {
    const json = parseJson(bytes, parsed);
    if (!json.ok) return { state: 'refused', reason: json.reason, damaged: false };
    // A receipt Go cannot decode is refused in the decoder's words, as any payload is; one it decodes is then
    // checked (`SubmissionReceipts`: `invalid submission receipt`, measured with Reasonix 1.38.11).
    const receipt = SubmissionReceiptSchema.safeParse(json.value);
    if (!receipt.success) return { state: 'refused', reason: describe(receipt.error), damaged: false };
    const written = bytes && goLiteralRefusalOfParsed(bytes, json.value, RECEIPT_LITERALS);
    return written ? { state: 'refused', reason: written, damaged: false } : { state: 'ok', value: receipt.data };
  }
  if (!Object.hasOwn(StrictPayloadSchemas, kind)) return { state: 'unread' };
  const json = parseJson(bytes, parsed);
  if (!json.ok) return { state: 'refused', reason: json.reason, damaged: true };
  const name = kind as keyof typeof StrictPayloadSchemas;
  const decoded = COMPILED_PAYLOAD_SCHEMAS[name]().safeParse(json.value);
  if (!decoded.success) return { state: 'refused', reason: describe(decoded.error), damaged: true };
  // JSON.parse keeps no trace of `1.0`; Go refuses it for an integer field.
  const written = bytes && goLiteralRefusalOfParsed(bytes, json.value, PAYLOAD_LITERALS[name]);
  if (written) return { state: 'refused', reason: written, damaged: true };
  const reason = CHECKS[name]?.(decoded.data as Value);
  return reason === undefined ? { state: 'ok', value: decoded.data } : { state: 'refused', reason, damaged: true };
}
