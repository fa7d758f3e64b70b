import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { expectMigratedAsReasonix, resumeTranscript, transcriptIn } from '../../support/reasonix/jsonl-transcript.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { raw } from '../../support/sessions/payload-rules.js';

/**
 * A key written twice in one object, exactly. `JSON.parse` keeps the last value; Go's decoder, which Reasonix
 * reads every payload and transcript line with, applies both in order: a field takes the second value decoded
 * into the first (`null` leaves a bool as it was, a second list of calls decodes into the first's calls), and
 * a value of the wrong type under the first is refused whatever the second holds. rxstore's verdict, and a
 * migration's bytes, must be Reasonix's.
 */
const source = fixture('plain-chat');
const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
const replace = (...messages: string[]) =>
  raw('history/replace', `{"messages":[{"role":"system","id":"s","content":"sys"},${messages.join(',')}]}`);

/** Each case: what it is, the events appended, and what Reasonix's refusal says (undefined: it resumes). */
const sessions: [string, EventToWrite[], RegExp | undefined][] = [
  [
    'a local-only message with a paused read, local_only written again as null: its notice takes a key in use',
    [
      replace(
        '{"role":"assistant","id":"u","content":"x","local_only":true,"read_pause":{},"local_only":null}',
        '{"role":"assistant","id":"u:notice:0","content":"y"}',
      ),
    ],
    /duplicate transcript record "m:u:notice:0"/,
  ],
  [
    "a message's calls written twice: the second list decodes into the first's call, which keeps its id and name",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}],"tool_calls":[{"diff":"d"}]}',
      ),
      complete('{"role":"tool","id":"nf-r","tool_call_id":"c1","name":"bash","content":"out"}'),
    ],
    undefined,
  ],
  [
    'a number under the first of two content keys, a string under the second',
    [complete('{"role":"assistant","id":"nf","content":5,"content":"probe"}')],
    /cannot unmarshal number into Go struct field .*content of type string/,
  ],
  [
    'an unknown key under the first of two paused reads, the second null',
    [complete('{"role":"assistant","id":"nf","content":"probe","read_pause":{"bogus":1},"read_pause":null}')],
    /unknown field "bogus"/,
  ],
  [
    "a number under the first of a map's key written twice, a list under the second",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"probe","mcp_app":{"server":"s","tool":"t","csp":{"a":5,"a":["x"]}}}',
      ),
    ],
    /cannot unmarshal number into Go struct field .*csp of type \[\]string/,
  ],
  [
    'a number written 1.0 under the first of two keys, the second null: Go refused it all the same',
    [
      complete(
        '{"role":"assistant","id":"nf","content":"probe","tool_execution":{"durationMs":1.0},"tool_execution":null}',
      ),
    ],
    /cannot unmarshal number 1.0 into Go struct field .*durationMs of type int64/,
  ],
  [
    "a map's two keys that are one once their lone surrogates are U+FFFD, a number under the first",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"probe","mcp_app":{"server":"s","tool":"t","csp":{"\\ud800":5,"\\ufffd":["x"]}}}',
      ),
    ],
    /cannot unmarshal number into Go struct field .*csp of type \[\]string/,
  ],
  [
    "a map's key written twice, each a list",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"probe","mcp_app":{"server":"s","tool":"t","csp":{"a":["x"],"a":["y"]}}}',
      ),
    ],
    undefined,
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('a key written twice, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(sessions)('a v4 session: %s', async (_, events, refusal) => {
    const dir = await copySession(source.dir);
    try {
      await appendBatch(dir, events);
      const read = await readSession(dir);
      const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
      await rm(run.home, { recursive: true, force: true });
      expect(run.code, run.stderr).toBe(refusal ? 1 : 0);
      expect(read.status).toBe(refusal ? 'damaged' : 'ok');
      if (refusal) expect(run.stderr).toMatch(refusal);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.concurrent('a transcript: a local-only message written again as null is still local-only, its notice refused where its key is taken', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'rxstore-repeated-keys-')));
    try {
      const { stateRoot, workspace, transcript } = await transcriptIn(base, [
        '{"role":"user","content":"hello"}',
        '{"role":"assistant","id":"u","content":"x","local_only":true,"read_pause":{},"local_only":null}',
        '{"role":"assistant","id":"u:notice:0","content":"y"}',
        '{"role":"assistant","content":"done"}',
      ]);
      const refusal = 'duplicate transcript record "m:u:notice:0"';
      const read = await readJsonlSession(transcript);
      expect(read.problems.map(({ message }) => message).join('\n')).toContain(refusal);
      const run = await resumeTranscript(stateRoot, workspace);
      expect(run.stderr).toContain(refusal);
      expect(run.code).toBe(1);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it.concurrent("a transcript's keys written twice are migrated as Reasonix migrates them: the same bytes", async () => {
    const messages = [
      '{"role":"user","content":"hello","content":"hello again"}',
      '{"role":"assistant","content":"x","read_pause":{"code":"k","reads":[{"readId":"a","covered":[[1,2]]}]},"read_pause":{"id":"r","reads":[{"path":"p"}]}}',
      '{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}],"tool_calls":[{"diff":"d"}]}',
      '{"role":"tool","tool_call_id":"c1","name":"bash","content":"ok","tool_execution":{"exitCode":1},"tool_execution":{"durationMs":5}}',
      '{"role":"assistant","content":"done","content":null}',
    ];
    const base = await realpath(await mkdtemp(join(tmpdir(), 'rxstore-repeated-keys-')));
    try {
      await expectMigratedAsReasonix(base, messages);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
