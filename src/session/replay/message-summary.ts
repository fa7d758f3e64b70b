import { isJsonObjectText, type Message } from './message.js';

/** Enough of a message's text to tell a pruned tool result or a preview apart. */
const SUMMARY_CONTENT_CHARS = 200;

/**
 * What a page's first pass needs of a message: tool-call arguments cut to whether they parse, and
 * the text of user messages and tool results to a prefix; other text is left out (it is most of
 * what a long session holds live, and the page takes it from the log in its second pass).
 */
export function summaryOf(message: Message): Message {
  const { role, id, origin, local_only, tool_call_id, name, createdAt } = message;
  const read = role === 'user' || role === 'tool';
  const raw_content = read ? message.raw_content : undefined;
  const content = read || typeof message.content !== 'string' ? message.content : '';
  return {
    role,
    ...(id !== undefined ? { id } : {}),
    ...(origin !== undefined ? { origin } : {}),
    ...(local_only ? { local_only } : {}),
    ...(tool_call_id !== undefined ? { tool_call_id } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(raw_content ? { raw_content: prefixOf(raw_content) } : {}),
    content: typeof content === 'string' ? prefixOf(content) : content,
    ...(message.tool_calls
      ? // Stryker disable next-line StringLiteral: arguments that are none: neither '' nor the mutant's text is a JSON object
        {
          tool_calls: message.tool_calls.map((call) => ({
            id: call.id,
            name: call.name ?? call.function?.name,
            arguments: isJsonObjectText(call.arguments ?? call.function?.arguments ?? '')
              ? '{}'
              : (call.arguments ?? call.function?.arguments ?? '') === ''
                ? ''
                : 'not an object',
          })),
        }
      : {}),
  };
}

/** The start of a text as a string of its own: a plain slice would keep the whole text alive. */
export function prefixOf(text: string): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a text of exactly 200 characters, or any text, copied whole: the same string (memory only)
  return text.length <= SUMMARY_CONTENT_CHARS ? text : Buffer.from(text.slice(0, SUMMARY_CONTENT_CHARS)).toString();
}
