import type { BatchToWrite } from '../../../src/codec/encode-batch.js';
import { complete } from './messages.js';

export { complete };

let counter = 0;
/** Ids in Reasonix's 26-character Crockford base32 form (docs/format.md §8.3); any unique string would do. */
export function messageId(): string {
  counter += 1;
  return `01RXSTORE${String(counter).padStart(17, '0')}`;
}

/**
 * A small conversation as rxstore's writer lays it down: a system prompt and session config, a
 * user turn answered with a bash tool call and its result, a CJK/emoji turn, and a tool result
 * over 64 KiB (so its payload goes to the content store).
 */
export function sampleBatches(): BatchToWrite[] {
  const callId = 'call_rxstore_bash_1';
  const bigCallId = 'call_rxstore_read_1';
  const bigOutput = Array.from({ length: 1500 }, (_, line) => `line ${line}: ${'the quick brown fox '.repeat(3)}`).join(
    '\n',
  );
  return [
    {
      operationId: 'session-create',
      events: [
        complete({ role: 'system', id: messageId(), content: 'You are a careful coding agent.' }),
        { kind: 'session/config', payload: { modelIdentity: '', modelRef: 'mock/mock-model' } },
      ],
    },
    {
      operationId: 'rxstore-test:turn-1',
      turnId: 'turn_00000000000000000000000000000001',
      events: [
        complete({
          role: 'user',
          id: messageId(),
          origin: 'user',
          content: 'List the files, please.',
          raw_content: 'List the files, please.',
          createdAt: 1767323045123,
        }),
        complete({
          role: 'assistant',
          id: messageId(),
          content: '',
          tool_calls: [{ id: callId, name: 'bash', arguments: '{"command":"ls"}' }],
        }),
        complete({ role: 'tool', id: messageId(), tool_call_id: callId, name: 'bash', content: 'README.md\nsrc\n' }),
        complete({ role: 'assistant', id: messageId(), content: 'There are two entries: README.md and src.' }),
      ],
    },
    {
      operationId: 'rxstore-test:turn-2',
      turnId: 'turn_00000000000000000000000000000002',
      events: [
        complete({
          role: 'user',
          id: messageId(),
          origin: 'user',
          content: '你好，世界 🌏 — read the big file',
          createdAt: 1767323105123,
        }),
        complete({
          role: 'assistant',
          id: messageId(),
          content: '',
          tool_calls: [{ id: bigCallId, name: 'read_file', arguments: '{"path":"big.txt"}' }],
        }),
        complete({ role: 'tool', id: messageId(), tool_call_id: bigCallId, name: 'read_file', content: bigOutput }),
        complete({ role: 'assistant', id: messageId(), content: '读完了 ✅ The file has 1500 lines.' }),
      ],
    },
  ];
}
