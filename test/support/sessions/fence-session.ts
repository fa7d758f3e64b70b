import { createSession } from '../../../src/session/writing/create-session.js';
import { complete, messageId } from './sample-session.js';

/** Lines that open or close a fence and carry text of their own: a page that drops fence lines loses it. */
export const FENCE_LINES = [
  '``` | a | b |',
  '~~~~ tilde info',
  '   ```` indented with text',
  '```python',
  '``` trailing text on a closing line',
];

/** Messages whose fences hold text on their fence lines, closed or not. */
export const FENCE_MESSAGES = [
  `Here is a table:\n${FENCE_LINES[0]}\n| 1 | 2 |\n\`\`\`\nand after it.`,
  `${FENCE_LINES[1]}\nbody\n~~~~\n${FENCE_LINES[2]}\nmore body\n\`\`\`\`\nend`,
  `${FENCE_LINES[3]}\nprint("never closed")\n${FENCE_LINES[4]}`,
];

/** A session of a user and an assistant whose messages are `FENCE_MESSAGES`. */
export async function writeFenceSession(storeDir: string): Promise<{ dir: string; id: string }> {
  const created = await createSession({
    storeDir,
    batches: [
      { operationId: 'session-create', events: [complete({ role: 'system', id: messageId(), content: 'System.' })] },
      {
        operationId: 'fence-turn',
        turnId: 'turn_00000000000000000000000000000042',
        events: [
          { kind: 'turn/start', payload: { status: 'in_progress' } },
          ...FENCE_MESSAGES.map((content, at) =>
            complete({
              role: at % 2 === 0 ? 'user' : 'assistant',
              id: messageId(),
              origin: 'user',
              content,
              raw_content: content,
            }),
          ),
          { kind: 'turn/end', payload: { status: 'completed' } },
        ],
      },
    ],
  });
  return { dir: created.dir, id: created.id };
}
