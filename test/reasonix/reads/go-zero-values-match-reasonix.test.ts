import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { checkHygiene } from '../../../src/session/replay/hygiene.js';
import { providerMessages } from '../../../src/session/replay/views.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Payloads Reasonix 1.38.11 opens where a reading of the JSON alone would not see what it holds:
 * Go grows a slice with zeroed elements, so a `null` in a list of messages is an empty message and
 * a `null` tool call is one with no id, name or arguments. rxstore's model view is what the real
 * Reasonix sends the model; and a tool call its transcript gate refuses to resume is a warning in
 * rxstore's hygiene, never a clean bill.
 */
const source = fixture('plain-chat');

async function resumed(events: EventToWrite[]) {
  const dir = await copySession(source.dir);
  await appendBatch(dir, events);
  const read = await readSession(dir);
  const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
  await rm(run.home, { recursive: true, force: true });
  const gate = `${run.stdout}\n${run.stderr}`.split('\n').find((line) => line.startsWith('error: transcript gate:'));
  return { read, code: run.code, gate, sent: run.requests[0]?.messages.map(asSent) };
}

const lists: [string, EventToWrite[]][] = [
  [
    'a null in a history/replace list is an empty message',
    [raw('history/replace', '{"messages":[{"role":"user","id":"h1","content":"kept"},null]}')],
  ],
  [
    'a null in a model/context-replace list is an empty message',
    [raw('model/context-replace', '{"messages":[null,{"role":"user","id":"k1","content":"kept"}]}')],
  ],
  [
    'a null in a compaction list is an empty message',
    [raw('compaction', '{"messages":[{"role":"user","id":"k1","content":"summary"},null],"trigger":"auto"}')],
  ],
  [
    "nulls in a message's lists of citations, images and receipts",
    [
      raw(
        'message/complete',
        '{"message":{"role":"user","id":"z1","content":"x","memoryCitations":[null],"images":[null],"decision_receipts":[null]}}',
      ),
    ],
  ],
  [
    'a local-only message in a checkpoint is not sent',
    [
      raw(
        'model/context-replace',
        '{"messages":[{"role":"system","id":"s","content":"sys"},{"role":"user","id":"k1","content":"local","local_only":true},{"role":"user","id":"k2","content":"kept"}]}',
      ),
    ],
  ],
  // A checkpoint is taken as it is, one id twice included; an upsert of that id then replaces the first.
  [
    'an upsert of an id a checkpoint holds twice',
    [
      raw(
        'model/context-replace',
        '{"messages":[{"role":"user","id":"k1","content":"first"},{"role":"assistant","id":"k2","content":"between"},{"role":"user","id":"k1","content":"second"}]}',
      ),
      raw('message/upsert', '{"message":{"role":"user","id":"k1","content":"upserted"}}'),
    ],
  ],
];

const calls: [string, string, boolean][] = [
  ['arguments that are a JSON object', '{"id":"c","name":"bash","arguments":"{}"}', false],
  ['empty arguments', '{"id":"c","name":"bash","arguments":""}', true],
  ['arguments that are a JSON list', '{"id":"c","name":"bash","arguments":"[]"}', true],
  ['an empty name', '{"id":"c","name":"","arguments":"{}"}', true],
  ['a null tool call: no id, name or arguments', 'null', true],
  [
    'its id made twice in the message',
    '{"id":"c","name":"bash","arguments":"{}"},{"id":"c","name":"bash","arguments":"{}"}',
    true,
  ],
  [
    'an empty id made twice in the message',
    '{"id":"","name":"bash","arguments":"{}"},{"id":"","name":"bash","arguments":"{}"}',
    false,
  ],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle(`Go's zero values and the transcript gate, judged by Reasonix 1.38.11`),
  () => {
    it.concurrent.each(lists)('%s: the model view is what Reasonix sends', async (_, events) => {
      const { read, code, sent } = await resumed(events);
      expect(code).toBe(0);
      expect(read.status).toBe('ok');
      // Reasonix appends the new turn: its host session-context message and the typed prompt.
      expect(sent!.slice(0, -2)).toEqual(providerMessages(read.projection));
    });

    it.concurrent.each(calls)(
      'a tool call with %s: refused by the gate exactly when hygiene warns of it and rxstore says turn-refused',
      async (_, call, refused) => {
        const { read, code, gate } = await resumed([
          raw(
            'message/complete',
            `{"message":{"role":"assistant","id":"z1","content":"calling","tool_calls":[${call}]}}`,
          ),
          raw('message/complete', '{"message":{"role":"tool","id":"z2","tool_call_id":"c","content":"out"}}'),
        ]);
        // Reasonix opens every one of them; the ones its gate refuses are said to take no new turn.
        expect(read.status).toBe(refused ? 'turn-refused' : 'ok');
        const warned = checkHygiene(read.projection).findings.filter((finding) =>
          ['RX_TRUNCATED_ARGUMENTS', 'RX_EMPTY_TOOL_NAME', 'RX_DUPLICATE_CALL_ID'].includes(finding.code),
        );
        expect({ code, gate: gate !== undefined }).toEqual({ code: refused ? 1 : 0, gate: refused });
        expect(warned.length > 0).toBe(refused);
        expect(read.projection.transcript.at(-2)!.message).toMatchObject({
          id: 'z1',
          tool_calls: expect.arrayContaining([expect.any(Object)]),
        });
      },
    );
  },
);
