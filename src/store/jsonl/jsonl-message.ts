import { goEncoded, goEncodedAsWritten } from '../../codec/go-json/go-encode.js';
import { JsonSpan } from '../../codec/go-json/json-spans.js';
import { isJsonObject } from '../../codec/go-json/json-object.js';
import { StrictMessageSchema } from '../../session/replay/strict-message.js';

/**
 * A provider message as Reasonix's Go structs serialise it (docs/format.md §8.1, §8.2): every struct's known
 * fields in its order, those tagged `omitempty` left out when empty, the others written with their zero values,
 * unknown keys dropped, at every depth — which is what Reasonix's lenient JSONL decode followed by a re-encode
 * produces. Byte-identical payloads and the legacy message ids (docs/format.md §8.3) depend on it.
 */

type Json = Record<string, unknown>;

/** A call in the flat form Reasonix decodes; OpenAI's nested form is flattened (see `GoMessage`). */
function flatToolCall(call: unknown): { call: unknown; wasNested: boolean } {
  if (!isJsonObject(call)) return { call, wasNested: false };
  const nested = isJsonObject(call.function) ? call.function : undefined;
  if (!nested) return { call, wasNested: false };
  return {
    call: { ...call, name: call.name ?? nested.name, arguments: call.arguments ?? nested.arguments },
    wasNested: true,
  };
}

export interface GoMessage {
  message: Json;
  /**
   * The message as Go writes it: `message`, but for a json.RawMessage field read from `text`, which holds the text
   * it was read from (a `RawJson`: `goJson` writes it as it is). The same object when there is none.
   */
  written: Json;
  /** Tool calls that came in OpenAI's nested form; Reasonix 1.38.11 would lose their names and arguments. */
  flattenedToolCalls: number;
}

/**
 * The stored form of a message read from a foreign or legacy source (decoded by the message's lenient schema).
 * Nested tool calls are flattened rather than emptied: that keeps them usable, where Reasonix's own migration
 * loses them and then refuses to resume (docs/format.md §8.2).
 */
export function goMessage(source: Json, text?: string): GoMessage {
  let flattenedToolCalls = 0;
  const calls = Array.isArray(source.tool_calls)
    ? source.tool_calls.map((call) => {
        const flat = flatToolCall(call);
        if (flat.wasNested) flattenedToolCalls += 1;
        return flat.call;
      })
    : source.tool_calls;
  const input = { ...source, tool_calls: calls };
  if (text === undefined) {
    const message = goEncoded(StrictMessageSchema, input) as Json;
    return { message, written: message, flattenedToolCalls };
  }
  const { value, written } = goEncodedAsWritten(StrictMessageSchema, input, new JsonSpan(text, 0, text.length));
  return { message: value as Json, written: written as Json, flattenedToolCalls };
}
