import { goStructFields } from '../../codec/go-json/go-decode.js';
import {
  StrictMessageSchema,
  StrictToolCallSchema,
  StrictToolExecutionSchema,
} from '../../session/replay/strict-message.js';

/**
 * A provider message as Reasonix's Go structs serialise it (docs/format.md §8.1, §8.2): the known fields in
 * struct order, zero values omitted (`omitempty`), unknown keys dropped — which is what Reasonix's
 * lenient JSONL decode followed by a re-encode produces. Byte-identical payloads and the legacy
 * message ids (docs/format.md §8.3) depend on it.
 */

// Reasonix's field lists, in struct order, are the keys of its structs' schemas: one list for decoding and encoding.
const MESSAGE_FIELDS = goStructFields(StrictMessageSchema);
const TOOL_CALL_FIELDS = goStructFields(StrictToolCallSchema);
const TOOL_EXECUTION_FIELDS = goStructFields(StrictToolExecutionSchema);
type ToolCallField = (typeof TOOL_CALL_FIELDS)[number];
type ToolExecutionField = (typeof TOOL_EXECUTION_FIELDS)[number];

/** Serialised even when empty. */
const TOOL_CALL_ALWAYS = new Set<ToolCallField>(['id', 'name', 'arguments']);
const TOOL_EXECUTION_ALWAYS = new Set<ToolExecutionField>(['supportsAndAnd']);
/** Go pointer fields: omitted only when absent, so a 0 exit code survives. */
const TOOL_EXECUTION_POINTERS = new Set<ToolExecutionField>(['exitCode']);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Go's `omitempty`: false, 0, "", null, and empty arrays and maps are left out. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function pick(
  source: Json,
  fields: readonly string[],
  always: ReadonlySet<string> = new Set(),
  pointers: ReadonlySet<string> = new Set(),
): Json {
  const out: Json = {};
  for (const field of fields) {
    const value = source[field];
    if (always.has(field)) out[field] = value ?? (field === 'supportsAndAnd' ? false : '');
    else if (pointers.has(field) ? value !== undefined && value !== null : !isEmpty(value)) out[field] = value;
  }
  return out;
}

/** What Reasonix's flat ToolCall keeps of a call; OpenAI's nested form is flattened (see `GoMessage`). */
function goToolCall(call: unknown): { call: Json; wasNested: boolean } {
  const source = isObject(call) ? call : {};
  const nested = isObject(source.function) ? source.function : undefined;
  const flat = nested
    ? { ...source, name: source.name ?? nested.name, arguments: source.arguments ?? nested.arguments }
    : source;
  return { call: pick(flat, TOOL_CALL_FIELDS, TOOL_CALL_ALWAYS), wasNested: nested !== undefined };
}

export interface GoMessage {
  message: Json;
  /** Tool calls that came in OpenAI's nested form; Reasonix 1.38.11 would lose their names and arguments. */
  flattenedToolCalls: number;
}

/**
 * The stored form of a message read from a foreign or legacy source. Nested tool calls are
 * flattened rather than emptied: that keeps them usable, where Reasonix's own migration loses
 * them and then refuses to resume (docs/format.md §8.2).
 */
export function goMessage(source: Json): GoMessage {
  const message = pick(source, MESSAGE_FIELDS);
  message.role = typeof source.role === 'string' ? source.role : '';
  let flattenedToolCalls = 0;
  if (Array.isArray(source.tool_calls) && source.tool_calls.length > 0) {
    message.tool_calls = source.tool_calls.map((call) => {
      const converted = goToolCall(call);
      if (converted.wasNested) flattenedToolCalls += 1;
      return converted.call;
    });
  }
  if (isObject(source.tool_execution))
    message.tool_execution = pick(
      source.tool_execution,
      TOOL_EXECUTION_FIELDS,
      TOOL_EXECUTION_ALWAYS,
      TOOL_EXECUTION_POINTERS,
    );
  return { message: reorder(message), flattenedToolCalls };
}

/** Keeps the struct order after fields were replaced above. */
function reorder(message: Json): Json {
  const out: Json = {};
  for (const field of MESSAGE_FIELDS) if (field in message) out[field] = message[field];
  return out;
}
