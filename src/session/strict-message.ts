import { z } from 'zod';

/**
 * What Reasonix 1.38.11's strict payload decoder accepts in a provider message (spec §7.2, §8.1):
 * these 39 keys and no other, tool calls in the flat form only, and a strict `tool_execution`.
 * Nested objects whose field lists the spec leaves unconfirmed are accepted as any object.
 */
const anyObject = z.record(z.string(), z.unknown());
const anyJson = z.unknown();

export const StrictToolCallSchema = z.strictObject({
  tool_recovery: anyObject.optional(),
  write_intents: z.array(anyJson).optional(),
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  thought_signature: z.string().optional(),
  diff: z.string().optional(),
  added: z.number().optional(),
  removed: z.number().optional(),
  resolved_name: z.string().optional(),
  capability_id: z.string().optional(),
  resolved_read_only: z.boolean().optional(),
});

export const StrictToolExecutionSchema = z.strictObject({
  kind: z.string().optional(),
  shell: z.string().optional(),
  shellVersion: z.string().optional(),
  platform: z.string().optional(),
  supportsAndAnd: z.boolean().optional(),
  state: z.string().optional(),
  failurePhase: z.string().optional(),
  exitCode: z.number().int().nullable().optional(),
  outputTail: z.string().optional(),
  mutationRisk: z.string().optional(),
  verification: z.string().optional(),
  durationMs: z.number().optional(),
});

export const StrictMessageSchema = z.strictObject({
  role: z.string(),
  id: z.string().optional(),
  origin: z.string().optional(),
  content: z.string().nullable().optional(),
  raw_content: z.string().optional(),
  provider_content: z.string().optional(),
  images: z.array(z.string()).nullable().optional(),
  image_inputs: z.array(anyObject).nullable().optional(),
  reasoning_content: z.string().optional(),
  reasoning_id: z.string().optional(),
  reasoning_status: z.string().optional(),
  reasoning_signature: z.string().optional(),
  reasoning_state: z.string().optional(),
  thinking_blocks: z.array(anyObject).nullable().optional(),
  tool_calls: z.array(StrictToolCallSchema).nullable().optional(),
  responses_items: z.array(anyJson).nullable().optional(),
  server_search: z.array(anyObject).nullable().optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  memoryCitations: z.array(anyObject).nullable().optional(),
  workDurationMs: z.number().int().optional(),
  createdAt: z.number().int().optional(),
  edited: z.boolean().optional(),
  original: z.string().optional(),
  local_only: z.boolean().optional(),
  decision_receipt: anyObject.nullable().optional(),
  decision_receipts: z.array(anyObject).nullable().optional(),
  interrupted_turn: anyObject.nullable().optional(),
  final_readiness_recovery: anyObject.nullable().optional(),
  protocol_recovery: anyJson.optional(),
  read_pause: anyObject.nullable().optional(),
  tool_execution: StrictToolExecutionSchema.nullable().optional(),
  tool_run_state: z.string().optional(),
  presented_files: anyObject.nullable().optional(),
  read_result: anyJson.optional(),
  tool_diagnostic: anyJson.optional(),
  read_completion: anyObject.nullable().optional(),
  mcp_app: anyObject.nullable().optional(),
  vision_summary: anyObject.nullable().optional(),
});
