import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EventToWrite } from '../../../src/codec/encode-batch.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { raw } from '../../support/sessions/payload-rules.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Reasonix decodes the objects nested in a message (a turn's recovery, reads paused and completed, files
 * presented, an MCP app, thinking blocks, server searches, a call's run) into structs of its own, strictly:
 * a key it does not know, at any depth, or a value of the wrong type, and it refuses the session; a key in
 * another case, `null`, and a field of raw JSON holding anything, and it opens it. A local-only message's
 * paused or completed read is a notice of its own, keyed as the message's first. Each case appends one batch
 * to a session Reasonix wrote; rxstore's verdict must be Reasonix's.
 */
const source = fixture('plain-chat');
/** An assistant message carrying `fields` (JSON members, without braces). */
const carrying = (fields: string, id = 'nf') => `{"role":"assistant","id":"${id}","content":"probe",${fields}}`;
const complete = (message: string) => raw('message/complete', `{"message":${message}}`);
const replace = (...messages: string[]) =>
  raw('history/replace', `{"messages":[{"role":"system","id":"s","content":"sys"},${messages.join(',')}]}`);
const record =
  '{"identity":{"session_id":"s","call_id":"c1","canonical_tool":"bash"},"arguments":{"any":["json"]},"state":"completed","read_only":true,"started_at":1,"finished_at":2}';
const interrupted = `{"turn_id":"t","cause":"cancel","terminalStatus":"interrupted","failureDiagnostic":{"kind":"k","status":500,"requestPath":"/v1"},"write_checks":[{"call_id":"c1","path":"a.txt","state":"done"}],"completed_tools":[{"id":"c1","name":"bash","files":["a.txt"],"added":1,"removed":0}],"pending":true,"interrupted_tools":["bash"],"tool_calls":[${record}]}`;
const paused =
  '{"code":"c","id":"p","reads":[{"readId":"r","path":"a.txt","covered":[[1,2,3]],"missing":[[4]]}],"omitted":0}';
const completed =
  '{"id":"p","reads":[{"read_id":"r","path":"a.txt","verdict":"ok","covered":[[1,9]],"source_end":null}]}';

/** Each case: what it is, the events appended, and what Reasonix's refusal says (undefined: it resumes). */
const cases: [string, EventToWrite[], RegExp | undefined][] = [
  ['an interrupted turn with its fields', [complete(carrying(`"interrupted_turn":${interrupted}`))], undefined],
  [
    'an unknown key in an interrupted turn',
    [complete(carrying('"interrupted_turn":{"bogus":1}'))],
    /unknown field "bogus"/,
  ],
  [
    "an unknown key in an interrupted turn's failure",
    [complete(carrying('"interrupted_turn":{"failureDiagnostic":{"kind":"k","bogus":1}}'))],
    /unknown field "bogus"/,
  ],
  [
    "a key of another version's interrupted turn",
    [complete(carrying('"interrupted_turn":{"user_confirmations":[]}'))],
    /unknown field "user_confirmations"/,
  ],
  [
    'a number for an interrupted turn id',
    [complete(carrying('"interrupted_turn":{"turn_id":1}'))],
    /cannot unmarshal number into Go struct field .*turn_id of type string/,
  ],
  [
    'an interrupted turn in capitals, keys and all',
    [complete(carrying('"INTERRUPTED_TURN":{"TURN_ID":"t","Pending":true}'))],
    undefined,
  ],
  ['a null interrupted turn', [complete(carrying('"interrupted_turn":null'))], undefined],
  [
    'a final readiness recovery whose checkpoint holds any JSON',
    [complete(carrying('"final_readiness_recovery":{"pending":false,"missing":["x"],"checkpoint":[1,{"b":"c"}]}'))],
    undefined,
  ],
  ['a paused read, its ranges of any length', [complete(carrying(`"read_pause":${paused}`))], undefined],
  [
    "a paused read's id spelled as a completed read's",
    [complete(carrying('"read_pause":{"reads":[{"read_id":"r"}]}'))],
    /unknown field "read_id"/,
  ],
  [
    "a null in a paused read's range, and a null range: zero values",
    [complete(carrying('"read_pause":{"reads":[{"missing":[[null,1]],"covered":[null]}]}'))],
    undefined,
  ],
  ['a completed read', [complete(carrying(`"read_completion":${completed}`))], undefined],
  [
    "a completed read's id spelled as a paused read's",
    [complete(carrying('"read_completion":{"reads":[{"readId":"r"}]}'))],
    /unknown field "readId"/,
  ],
  [
    'presented files of any version',
    [complete(carrying('"presented_files":{"version":-1,"files":[{"path":"a.txt","description":"d"}]}'))],
    undefined,
  ],
  [
    'an unknown key in a presented file',
    [complete(carrying('"presented_files":{"files":[{"path":"a.txt","bogus":1}]}'))],
    /unknown field "bogus"/,
  ],
  [
    'an MCP app with its policy map and raw results',
    [
      complete(
        carrying(
          '"mcp_app":{"server":"s","tool":"t","generation":18446744073709551615,"csp":{"any":["a",null]},"rawResult":"x","structured":7}',
        ),
      ),
    ],
    undefined,
  ],
  [
    'an MCP app generation below zero',
    [complete(carrying('"mcp_app":{"generation":-1}'))],
    /cannot unmarshal number -1 into Go struct field .*generation of type uint64/,
  ],
  [
    'an unknown key in a thinking block',
    [complete(carrying('"thinking_blocks":[{"type":"thinking","thinking":"t","bogus":1}]'))],
    /unknown field "bogus"/,
  ],
  [
    "a server search with its sources' status",
    [
      complete(
        carrying('"server_search":[{"id":"s","sources_status":"ok","results":[{"title":"t","url":"u"}],"raw":{}}]'),
      ),
    ],
    undefined,
  ],
  [
    'an unknown key in a server search result',
    [complete(carrying('"server_search":[{"results":[{"title":"t","bogus":1}]}]'))],
    /unknown field "bogus"/,
  ],
  [
    'an unknown key in an image input',
    [complete(carrying('"image_inputs":[{"kind":"url","bogus":1}]'))],
    /unknown field "bogus"/,
  ],
  [
    "a call's recovery record",
    [
      complete(
        `{"role":"assistant","id":"nf","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}","tool_recovery":${record}}]}`,
      ),
      complete('{"role":"tool","id":"nf-r","tool_call_id":"c1","name":"bash","content":"out"}'),
    ],
    undefined,
  ],
  [
    "an unknown key in a call's recovery identity",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}","tool_recovery":{"identity":{"bogus":1}}}]}',
      ),
      complete('{"role":"tool","id":"nf-r","tool_call_id":"c1","name":"bash","content":"out"}'),
    ],
    /unknown field "bogus"/,
  ],
  // A local-only message's paused or completed read is its first notice, whatever else it holds.
  [
    'a local-only paused read, and a message with the id its notice is keyed by',
    [replace(carrying('"local_only":true,"read_pause":{}', 'u'), carrying('"local_only":false', 'u:notice:0'))],
    /duplicate transcript record "m:u:notice:0"/,
  ],
  [
    'a local-only completed read beside a message without an id',
    [
      replace(
        '{"role":"user","content":"one"}',
        '{"role":"assistant","content":"x","local_only":true,"read_completion":{}}',
      ),
    ],
    /duplicate transcript record "m::notice:0"/,
  ],
  [
    // Go decodes the second key into what the first set: the call keeps its id, name and arguments, and takes a turn.
    "a message's calls under two keys in other cases, merged",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}],"TOOL_CALLS":[{"diff":"d"}]}',
      ),
      complete('{"role":"tool","id":"nf-r","tool_call_id":"c1","name":"bash","content":"out"}'),
    ],
    undefined,
  ],
  [
    // Go decodes a list into a slice's elements in place: those past a shorter list stay, and a longer one decodes into them.
    "a message's calls under three keys, the second list shorter: the third takes the first's elements",
    [
      complete(
        '{"role":"assistant","id":"nf","content":"","tool_calls":[{"id":"a","name":"bash","arguments":"{}"},{"id":"b","name":"bash","arguments":"{}"}],"TOOL_CALLS":[{}],"Tool_Calls":[{},null]}',
      ),
      complete('{"role":"tool","id":"nf-a","tool_call_id":"a","name":"bash","content":"out"}'),
      complete('{"role":"tool","id":"nf-b","tool_call_id":"b","name":"bash","content":"out"}'),
    ],
    undefined,
  ],
  [
    'a value of the wrong type under the first of two keys, whatever the second holds',
    [complete('{"role":"assistant","id":"nf","CONTENT":5,"content":"probe"}')],
    /cannot unmarshal number into Go struct field .*content of type string/,
  ],
  [
    'an unknown key under the first of two keys, the second null',
    [complete(carrying('"read_pause":{"bogus":1},"READ_PAUSE":null'))],
    /unknown field "bogus"/,
  ],
  [
    // A json.RawMessage holds `null` as its text: present, so a local-only message with it shows no record.
    'two local-only messages without an id, their protocol recovery null, show no record',
    [
      replace(
        '{"role":"assistant","content":"x","local_only":true,"protocol_recovery":null}',
        '{"role":"assistant","content":"y","local_only":true,"protocol_recovery":null}',
      ),
    ],
    undefined,
  ],
  [
    'two local-only messages without an id show a record each, keyed alike',
    [
      replace(
        '{"role":"assistant","content":"x","local_only":true}',
        '{"role":"assistant","content":"y","local_only":true}',
      ),
    ],
    /duplicate transcript record "m::notice:0"/,
  ],
  [
    'a paused read on a message that is not local-only gives no notice',
    [replace(carrying('"read_pause":{}', 'u'), carrying('"local_only":false', 'u:notice:0'))],
    undefined,
  ],
  [
    'a local-only recovery pending in capitals is a notice',
    [
      replace(
        '{"role":"assistant","id":"u","content":"x","local_only":true,"final_readiness_recovery":{"PENDING":true}}',
        carrying('"local_only":false', 'u:notice:0'),
      ),
    ],
    /duplicate transcript record "m:u:notice:0"/,
  ],
];

describe.skipIf(!reasonixBinary())(reasonixTitle("a message's nested objects, judged by Reasonix 1.38.11"), () => {
  it.concurrent.each(cases)('%s', async (_, events, refusal) => {
    const dir = await copySession(source.dir);
    await appendBatch(dir, events);
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code).toBe(refusal ? 1 : 0);
    expect(read.status).toBe(refusal ? 'damaged' : 'ok');
    if (refusal) expect(run.stderr).toMatch(refusal);
  });
});
