import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { expectMigratedAsReasonix } from '../../support/reasonix/jsonl-transcript.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';

/**
 * A json.RawMessage field (a tool's structured result, a read's result, a recovery's arguments, …) keeps the text
 * it was read from: Reasonix 1.38.11's migration of a JSONL transcript writes it compacted, its escapes (`\u00e9`),
 * number forms (`1.0`, `1e2`), key order and keys written twice as they were, where writing the parsed value again
 * gives other bytes, and so other legacy ids for that message and every one after it. So does a whole number past
 * 2^53, which Go holds to the digit in an int64 or uint64 and a double does not (at the types' limits the double is
 * past their range). Each transcript is migrated by Reasonix and by rxstore, and every message's payload must be
 * byte for byte the same.
 */
const CALL = '{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"bash","arguments":"{}"}]}';
const result = (fields: string) => `{"role":"tool","tool_call_id":"c1","content":"ok",${fields}}`;

const transcripts: [string, string[]][] = [
  [
    'a message-level raw field: escapes, number forms, key order, white space, a key written twice, <>&',
    [
      CALL,
      result(
        '"tool_diagnostic":{"b":1,"a":"caf\\u00e9\\/","n":1.0,"2":true, "s" : "<x>&", "k":1, "k":[1e2, -0, 0.50]}',
      ),
      '{"role":"assistant","content":"done","read_result":"caf\\u00e9"}',
      '{"role":"user","content":"next","protocol_recovery":1.50}',
    ],
  ],
  [
    'raw fields in lists and nested structs: responses items, a call’s write intents, an MCP app’s results',
    [
      '{"role":"assistant","content":"","responses_items":[{"type":"x","n":1.0}, "\\u00e9", null],"tool_calls":[{"id":"c1","name":"bash","arguments":"{}","write_intents":[{"path":"a","z":1.0},{"b":2,"a":1}]}]}',
      result(
        '"mcp_app":{"server":"s","tool":"t","generation":1,"structured":{"v":1.0,"w":"\\u2028"},"rawResult":[ 1 , 2 ]}',
      ),
    ],
  ],
  [
    'a raw field named in another case or with an escaped key, and one written again as null',
    [
      CALL,
      result('"Tool_Diagnostic":{"x":1.0}'),
      '{"role":"assistant","content":"a","read\\u005fresult":{"y":2.0}}',
      '{"role":"assistant","content":"b","read_result":{"y":2.0},"read_result":null}',
    ],
  ],
  [
    'a struct written twice: a raw field the second leaves keeps the first’s text',
    [
      CALL,
      result(
        '"mcp_app":{"server":"s","tool":"t","generation":1,"structured":{"v":1.0}},"mcp_app":{"server":"s2","tool":"t","generation":1}',
      ),
    ],
  ],
  [
    'whole numbers past 2^53, up to the int64 and uint64 limits, written with every digit',
    [
      CALL,
      result(
        '"tool_execution":{"kind":"shell","durationMs":9223372036854775807,"exitCode":-9223372036854775808},"mcp_app":{"server":"s","tool":"t","generation":18446744073709551615}',
      ),
      '{"role":"assistant","content":"done","createdAt":9007199254740993,"workDurationMs":1234567890123456789}',
    ],
  ],
];

describe.skipIf(!reasonixBinary())('a raw field’s text as written, as Reasonix migrates it', () => {
  it.each(transcripts)(reasonixTitle('%s'), async (_, lines) => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'rxstore-raw-text-')));
    try {
      await expectMigratedAsReasonix(base, [{ role: 'user', content: 'run it' }, ...lines]);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
