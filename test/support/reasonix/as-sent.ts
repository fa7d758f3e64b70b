import type { ChatMessage } from './mock-model.js';

/** A message the mock received, reduced to the fields a provider message carries. */
export function asSent(message: ChatMessage) {
  const { role, content, tool_calls, tool_call_id, name } = message as ChatMessage & Record<string, unknown>;
  return {
    role,
    content: content ?? null,
    ...(tool_calls ? { tool_calls } : {}),
    ...(tool_call_id ? { tool_call_id } : {}),
    ...(name ? { name } : {}),
  };
}
