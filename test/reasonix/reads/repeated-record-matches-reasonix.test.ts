import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { providerMessages } from '../../../src/session/replay/views.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Reasonix keys the records it shows of a transcript — a tool result by its call, a message by its
 * id, a notice or a message without an id by its message's id and place (`m::notice:0` for each message
 * without one) — and refuses a session whose transcript, as the whole log leaves it, holds one key
 * twice: whatever event wrote the second, and not when a later event takes it back or a checkpoint holds
 * it (a checkpoint changes only the model's list). Each case appends batches to a session Reasonix
 * wrote; rxstore's verdict must be Reasonix's, the key named as Reasonix names it.
 */
const source = fixture('plain-chat');
const system = '{"role":"system","id":"s","content":"sys"}';
const call = (id = 'a1') =>
  `{"role":"assistant","id":"${id}","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}]}`;
const result = (id: string, extra = '') =>
  `{"role":"tool","id":"${id}","tool_call_id":"c1","name":"bash","content":"out ${id}"${extra}}`;
const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
const answered = [complete(call()), complete(result('t1'))];

const replace = (...messages: string[]) => [
  raw('history/replace', `{"messages":[${[system, ...messages].join(',')}]}`),
];
const said = (text: string, extra = '') => `{"role":"user","content":"${text}"${extra}}`;
const receipt = '{"id":"r","kind":"k","tool":"t","subject":"s","outcome":"o"}';
/** A local-only assistant message without an id, its text as JSON writes it. */
const localSaying = (text: string) => `{"role":"assistant","content":"${text}","local_only":true}`;

/** Each case: what it is, the batches appended, the record key Reasonix refuses (undefined: it resumes). */
const cases: [string, EventToWrite[][], string | undefined][] = [
  ['a second result by message/complete', [answered, [complete(result('t2'))]], 'tool:c1'],
  [
    'a second result by message/complete, taken back later',
    [answered, [complete(result('t2'))], [raw('message/retract', '{"messageIds":["t2"]}')]],
    undefined,
  ],
  ['a second result by message/upsert', [answered, [raw('message/upsert', `{"message":${result('t2')}}`)]], 'tool:c1'],
  ['two results in one history/replace', [replace(call(), result('t1'), result('t2'))], 'tool:c1'],
  [
    'two results in one history/replace, one local-only',
    [replace(call(), result('t1'), result('t2', ',"local_only":true'))],
    undefined,
  ],
  [
    'two results in a history/replace that a later one replaces',
    [replace(call(), result('t1'), result('t2')), replace(call(), result('t1'))],
    undefined,
  ],
  [
    'two results in a model/context-replace checkpoint',
    [[raw('model/context-replace', `{"messages":[${system},${call()},${result('t1')},${result('t2')}]}`)]],
    undefined,
  ],
  [
    'two calls with one id, each with its result',
    [[...answered, complete(call('a2')), complete(result('t2'))]],
    'tool:c1',
  ],
  ['one message without an id in a history/replace', [replace(said('no id'))], undefined],
  ['two user messages without an id', [replace(said('one'), said('two'))], 'm::notice:0'],
  [
    'a user message and a tool result without an id',
    [replace(said('one'), '{"role":"tool","content":"out"}')],
    'm::notice:0',
  ],
  [
    'two messages without an id, one of them local-only with nothing to show',
    [replace(said('one'), '{"role":"assistant","content":" ","local_only":true}')],
    undefined,
  ],
  [
    'two messages without an id, one of them written by the host',
    [replace(said('one'), said('context', ',"origin":"host"'))],
    undefined,
  ],
  [
    "a decision receipt's notice and a message with the id it is keyed by",
    [
      replace(
        said('one', `,"id":"u","decision_receipts":[${receipt}]`),
        '{"role":"assistant","id":"u:notice:1","content":"a"}',
      ),
    ],
    'm:u:notice:1',
  ],
  [
    'two messages without an id, taken out by a later history/replace',
    [replace(said('one'), said('two')), replace(said('one', ',"id":"u"'))],
    undefined,
  ],
  // A history keeps every message of its list, one id twice included, and each shows its record.
  [
    'a user message and an answer of one id in one history/replace',
    [replace(said('one', ',"id":"a"'), '{"role":"assistant","id":"a","content":"y"}')],
    'm:a',
  ],
  [
    // An upsert takes the place of the first message of its id; the second keeps its record.
    'a host message and a user message of one id, then an answer upserted under that id',
    [
      replace(said('context', ',"id":"a","origin":"host"'), said('one', ',"id":"a"')),
      [raw('message/upsert', '{"message":{"role":"assistant","id":"a","content":"new"}}')],
    ],
    'm:a',
  ],
  [
    // Reasonix names the first key it meets twice, in the transcript's order.
    'messages without an id between two of one id',
    [replace(said('x'), said('one', ',"id":"a"'), said('y'), '{"role":"assistant","id":"a","content":"z"}')],
    'm::notice:0',
  ],
  [
    'a system message and a user message of one id: the system message shows no record',
    [replace(said('one', ',"id":"s"'), '{"role":"assistant","id":"a","content":"y"}')],
    undefined,
  ],
  [
    'two messages of one id, the second local-only with nothing to show',
    [replace(said('one', ',"id":"a"'), '{"role":"assistant","id":"a","content":" ","local_only":true}')],
    undefined,
  ],
  ['two results of one id answering one call', [replace(call(), result('t1'), result('t1'))], 'tool:c1'],
  [
    'two messages of one id, taken out by a later history/replace',
    [replace(said('one', ',"id":"a"'), said('two', ',"id":"a"')), replace(said('one', ',"id":"a"'))],
    undefined,
  ],
  // What Go's strings.TrimSpace takes for white space, where JavaScript's trim() differs.
  [
    'a local-only message of a byte-order mark, beside one without an id',
    [replace(said('one'), localSaying('\\ufeff'))],
    'm::notice:0',
  ],
  [
    'a local-only message of a next-line character, beside one without an id',
    [replace(said('one'), localSaying('\\u0085'))],
    undefined,
  ],
  [
    'a local-only message with a pending protocol recovery, beside one without an id',
    [
      replace(
        said('one'),
        '{"role":"assistant","content":"x","local_only":true,"protocol_recovery":{"state":"pending"}}',
      ),
    ],
    undefined,
  ],
  [
    "a null decision receipt: no notice, so none at the place a message's id names",
    [
      replace(
        said('one', `,"id":"u","decision_receipts":[null,${receipt}]`),
        '{"role":"assistant","id":"u:notice:2","content":"a"}',
      ),
    ],
    undefined,
  ],
];

/** Histories holding one id twice that Reasonix opens: the model is sent every message, both of that id included. */
const sentWhole: [string, EventToWrite[][]][] = [
  [
    'a host message and a user message of one id',
    [
      replace(
        said('context', ',"id":"a","origin":"host"'),
        said('one', ',"id":"a"'),
        '{"role":"assistant","id":"b","content":"r"}',
      ),
    ],
  ],
  [
    'a call and its result of one id',
    [replace(call('k'), '{"role":"tool","id":"k","tool_call_id":"c1","name":"bash","content":"out"}')],
  ],
  [
    'a host message and a user message of one id, the first upserted',
    [
      replace(said('context', ',"id":"a","origin":"host"'), said('one', ',"id":"a"')),
      [raw('message/upsert', '{"message":{"role":"user","id":"a","origin":"host","content":"new context"}}')],
    ],
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('a transcript record held twice, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(sentWhole)('the model is sent what Reasonix sends: %s', async (_, batches) => {
    const dir = await copySession(source.dir);
    for (const events of batches) await appendBatch(dir, events);
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code, run.stderr).toBe(0);
    expect(read.status).toBe('ok');
    // Reasonix appends the new turn: its host session-context message and the typed prompt.
    expect(providerMessages(read.projection)).toEqual(run.requests[0]!.messages.map(asSent).slice(0, -2));
  });

  it.concurrent.each(cases)('%s', async (_, batches, refused) => {
    const dir = await copySession(source.dir);
    for (const events of batches) await appendBatch(dir, events);
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code).toBe(refused ? 1 : 0);
    expect(read.status).toBe(refused ? 'damaged' : 'ok');
    if (refused === undefined) return;
    const words = `session: initialize transcript for ${JSON.stringify(basename(dir))}: duplicate transcript record ${JSON.stringify(refused)}`;
    // Two calls with one id: Reasonix's model view refuses them first, in words of its own.
    expect(run.stderr).toMatch(refused === 'tool:c1' ? /duplicate (transcript record "tool:c1"|record id)/ : words);
    expect(read.refusal?.message).toContain(words);
  });
});
