import * as z from 'zod';
import type { StrictMessageSchema, StrictToolExecutionSchema } from './strict-message.js';
import { argumentsAreObject } from './transcript-gate.js';

/** The fields of Reasonix's message structs (the strict schemas' keys): each field typed below is one of them. */
type Fields<S extends { out: { shape: object } }> = { [K in keyof S['out']['shape']]?: z.ZodType };

/**
 * A tool call in the flat form Reasonix stores (docs/format.md §8.2). Readers also meet OpenAI's nested
 * form `{id, type, function: {name, arguments}}` in foreign data; `flatToolCall` reads both.
 */
export const ToolCallSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});
/** A tool call in an assistant message. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** The execution facts Reasonix keeps on a tool result (docs/format.md §8.2) that rxstore reads; the rest is kept as found. */
export const ToolExecutionSchema = z.looseObject({
  state: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  durationMs: z.number().optional(),
} satisfies Fields<typeof StrictToolExecutionSchema>);

/**
 * The provider message as rxstore reads it: the fields it uses are typed, every other field is
 * kept as found (so nothing is lost on export or migration). What Reasonix 1.38.11 would refuse
 * is checked separately, by `StrictMessageSchema`.
 */
export const MessageSchema = z.looseObject({
  // Reasonix decodes a message without a role (Go's zero value) and keeps it.
  role: z.string().default(''),
  id: z.string().optional(),
  origin: z.string().optional(),
  content: z.string().nullable().optional(),
  raw_content: z.string().optional(),
  /** What the provider is sent in place of `content`, when not empty. */
  provider_content: z.string().optional(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).nullable().optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  createdAt: z.number().optional(),
  local_only: z.boolean().optional(),
  tool_execution: ToolExecutionSchema.nullable().optional(),
} satisfies Fields<typeof StrictMessageSchema>);
/** A transcript message as Reasonix stores it. */
export type Message = z.infer<typeof MessageSchema>;

/**
 * The tool call a message answers as a record of the transcript Reasonix keys by call: a tool
 * result, not local-only, naming a call; undefined for any other message. Two for one call are refused.
 */
export function answeredCall(message: Pick<Message, 'role' | 'tool_call_id' | 'local_only'>): string | undefined {
  return message.role === 'tool' && message.tool_call_id && !message.local_only ? message.tool_call_id : undefined;
}

/** What a person reads of a message: what was typed (`raw_content`), else what the model was sent. */
export function messageText(message: Pick<Message, 'raw_content' | 'content'>): string {
  return message.raw_content || (message.content ?? '');
}

/** The flat `{id, name, arguments}` of a tool call in either form. */
export function flatToolCall(call: ToolCall): { id: string; name: string; arguments: string } {
  return {
    id: call.id ?? '',
    name: call.name ?? call.function?.name ?? '',
    arguments: call.arguments ?? call.function?.arguments ?? '',
  };
}

/** Tool-call arguments as the JSON object they hold; undefined when they are not a complete object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
    // Stryker disable next-line BlockStatement: an empty catch returns undefined as the original does
  } catch {
    // JSON.parse's SyntaxError, its only error: not JSON, so not a complete object.
    return undefined;
  }
}

/** Whether tool-call arguments are a complete JSON object: what Reasonix's run-time gate requires. */
export function isJsonObjectText(text: string): boolean {
  return argumentsAreObject(text);
}
