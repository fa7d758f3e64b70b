import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BatchToWrite, EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { SeenIds } from '../../../src/session/replay/seen-ids.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { tempDir } from '../../support/temp-dir.js';
import { complete } from '../../support/sessions/messages.js';

/**
 * The ids a log's replay holds, as listing's tally and the records cursor carry them: a batch that
 * may repeat a message id or answer an answered call again says so; one of new ids does not.
 */

async function projectionOf(events: EventToWrite[]) {
  const batches: BatchToWrite[] = [{ operationId: 'o1', createdAt: '2026-01-02T03:04:05.000Z', events }];
  const { dir } = await createSession({
    storeDir: join(await tempDir('rxstore-seen-'), 'sessions-v4'),
    batches,
    validate: false,
  });
  return (await readSession(dir)).projection;
}

const words = (base64: string) => Buffer.from(base64, 'base64').length / 4;

describe('the ids a replay has seen', () => {
  it('of a whole replay: a later batch repeating a message id or answering an answered call may repeat; new ids do not', async () => {
    const log = await projectionOf([
      complete({ role: 'user', id: 'm-a', content: 'go' }),
      complete({
        role: 'assistant',
        id: 'm-c',
        content: '',
        tool_calls: [{ id: 'call_1', name: 'bash', arguments: '{}' }],
      }),
      complete({ role: 'tool', id: 'm-r', tool_call_id: 'call_1', content: 'out' }),
    ]);
    expect(words(SeenIds.of(log).save().ids)).toBe(3);
    expect(words(SeenIds.of(log).save().answered)).toBe(1);
    expect(SeenIds.of(log).add(await projectionOf([complete({ role: 'user', id: 'm-new', content: 'more' })]))).toBe(
      false,
    );
    expect(SeenIds.of(log).add(await projectionOf([complete({ role: 'user', id: 'm-a', content: 'again' })]))).toBe(
      true,
    );
    expect(
      SeenIds.of(log).add(
        await projectionOf([complete({ role: 'tool', id: 'm-r2', tool_call_id: 'call_1', content: 'twice' })]),
      ),
    ).toBe(true);
    // What is saved goes on from where it was: the new batch's ids after the log's.
    const carried = SeenIds.of(log);
    carried.add(await projectionOf([complete({ role: 'user', id: 'm-new', content: 'more' })]));
    expect(
      SeenIds.from(carried.save()).add(await projectionOf([complete({ role: 'user', id: 'm-new', content: 'again' })])),
    ).toBe(true);
    expect(SeenIds.none().add(log)).toBe(false);
  });

  it('leaves out a message without an id, as a replaced history may hold', async () => {
    const replaced = await projectionOf([
      {
        kind: 'history/replace',
        payload: {
          messages: [
            { role: 'system', content: 'no id' },
            { role: 'user', id: 'm-x', content: 'x' },
          ],
        },
      },
    ]);
    expect(replaced.transcript).toHaveLength(2);
    expect(words(SeenIds.of(replaced).save().ids)).toBe(1);
    expect(SeenIds.none().add(replaced)).toBe(false);
    expect(words(SeenIds.none().save().ids)).toBe(0);
  });
});
