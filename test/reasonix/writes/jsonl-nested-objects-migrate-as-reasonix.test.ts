import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonlSession } from '../../../src/store/jsonl/read-jsonl-session.js';
import {
  expectMigratedAsReasonix,
  resumeTranscript as resume,
  transcriptIn,
} from '../../support/reasonix/jsonl-transcript.js';
import { reasonixBinary, reasonixTitle } from '../../support/reasonix/reasonix.js';

/**
 * Reasonix migrates a JSONL transcript by decoding each message into its structs and encoding it again: every
 * object nested in it written in its struct's order, the fields tagged `omitempty` left out when empty and the
 * others written with their zero values (`"read_pause":{"id":"","reads":null}` for `{}`), a raw JSON field's
 * `null` kept, a map's keys sorted, a line range of exactly two numbers, keys in another case taken as the
 * field's. rxstore's migration stores the same bytes, and so gives each message the legacy id Reasonix gives
 * it: a running hash over every message before it (docs/format.md §8.3).
 */
const user = { role: 'user', content: 'hello' };
const answer = { role: 'assistant', content: 'done' };
const call = (id: string, extra: object = {}) => ({ id, name: 'bash', arguments: '{}', ...extra });
const result = (id: string, extra: object = {}) => ({
  role: 'tool',
  tool_call_id: id,
  name: 'bash',
  content: 'ok',
  ...extra,
});
const saying = (fields: object) => ({ role: 'assistant', content: 'x', ...fields });

const transcripts: [string, object[]][] = [
  [
    'recovery objects, empty and filled',
    [
      user,
      saying({ read_pause: {} }),
      saying({ read_pause: { code: 'k', ID: 'r', reads: [{ readid: 'a', missing: [[5, 6]], covered: null }, null] } }),
      saying({ read_completion: {} }),
      saying({
        read_completion: {
          id: 'c',
          reads: [{ read_id: 'a', path: 'p', covered: [[1], [1, 2, 3], null], source_end: 0 }, {}],
          omitted: 2,
        },
      }),
      saying({ interrupted_turn: {} }),
      saying({
        interrupted_turn: {
          dropped_partial_text: true,
          turn_id: 't',
          failureDiagnostic: {},
          write_checks: [{}],
          completed_tools: [{}],
          tool_calls: [{}],
          interrupted_tools: ['a'],
          pending: false,
        },
      }),
      saying({ final_readiness_recovery: {} }),
      saying({ final_readiness_recovery: { checkpoint: null, missing: [] } }),
      saying({ protocol_recovery: null }),
      saying({ decision_receipt: {} }),
      saying({ decision_receipts: [{}, null, { tool: 't' }] }),
      answer,
    ],
  ],
  [
    'what a message shows besides its text',
    [
      user,
      saying({ presented_files: {} }),
      saying({ presented_files: { files: [{}, { path: 'p', description: 'd' }], version: 2 } }),
      saying({ mcp_app: { csp: {} } }),
      saying({
        mcp_app: {
          server: 's',
          tool: 't',
          generation: 0,
          // Keys sorted as Go sorts them, by their UTF-8 bytes: `｡` (U+FF61) before `😀`, which UTF-16 puts first.
          csp: { é: ['1'], z: null, a: [], '😀': [], '｡': ['2'], ['__proto__']: ['p'], constructor: ['c'] },
          rawResult: null,
          structured: { x: 1 },
        },
      }),
      saying({
        thinking_blocks: [{}, { type: 't', data: 'd' }],
        server_search: [{}, { id: 's', results: [{}, { url: 'u' }], raw: null }],
        memoryCitations: [{}, { kind: 'k', lineEnd: 2 }],
      }),
      { role: 'user', content: 'y', vision_summary: {} },
      { role: 'user', content: 'z', vision_summary: { version: 1, image_digests: [], summary: 's' } },
      saying({ responses_items: [null, { b: 1, a: [] }], read_result: {}, tool_diagnostic: [] }),
      saying({ Read_Pause: { Id: '<a&b>', Reads: [{ READID: 'a', Path: 'p' }] }, MCP_APP: { Server: 's' } }),
      answer,
    ],
  ],
  [
    // Go decodes the second key into what the first set: a struct's fields merge, a slice's elements too.
    'one field named by two keys in other cases',
    [
      user,
      saying({ read_pause: { id: 'a' }, READ_PAUSE: { omitted: 1 } }),
      saying({ mcp_app: { CSP: { b: ['x'] }, Csp: { a: ['y'] } } }),
      saying({ read_pause: { reads: [{ covered: [[1, 2]] }, {}] }, Read_Pause: { Reads: [{ path: 'p' }, null, {}] } }),
      saying({
        interrupted_turn: { tool_calls: [{ IDENTITY: { Session_Id: 's' }, Identity: { call_id: 'c' } }] },
      }),
      // `null` leaves a number of a line range, and makes a map nil; a longer list decodes into what a shorter one left.
      saying({ read_completion: { id: 'r', reads: [{ read_id: 'a', covered: [[1, 2]], COVERED: [[null, 9]] }] } }),
      saying({ mcp_app: { server: 's', csp: { a: ['x'] }, CSP: null, Csp: { b: ['y'] } } }),
      saying({
        interrupted_turn: {
          interrupted_tools: ['a', 'b', 'c'],
          INTERRUPTED_TOOLS: ['x'],
          Interrupted_tools: [null, null, null],
        },
      }),
      {
        role: 'assistant',
        content: '',
        tool_calls: [call('c3')],
        TOOL_CALLS: [{ diff: 'd' }],
      },
      result('c3'),
      answer,
    ],
  ],
  [
    "calls' runs and shell executions",
    [
      user,
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          call('c1', {
            tool_recovery: { state: 'done', identity: null, finished_at: 3, started_at: 1 },
            write_intents: [null, { a: 1 }],
            resolved_read_only: false,
          }),
        ],
      },
      result('c1', { tool_execution: { exitCode: 0, durationMs: 5 } }),
      { role: 'assistant', content: '', tool_calls: [call('c2', { tool_recovery: {} })] },
      result('c2', { tool_execution: {} }),
      answer,
    ],
  ],
];

describe.skipIf(!reasonixBinary())(
  reasonixTitle("a transcript's nested objects, migrated as Reasonix 1.38.11 migrates them"),
  () => {
    it.concurrent.each(transcripts)(
      '%s: the same bytes, so the same legacy ids, and the same verdict',
      async (_, messages) => {
        const base = await realpath(await mkdtemp(join(tmpdir(), 'rxstore-jsonl-nested-')));
        try {
          await expectMigratedAsReasonix(base, messages);
        } finally {
          await rm(base, { recursive: true, force: true });
        }
      },
    );

    it.concurrent('an empty paused read of a local-only message is a notice, refused where its key is taken', async () => {
      const base = await realpath(await mkdtemp(join(tmpdir(), 'rxstore-jsonl-nested-')));
      try {
        const messages = [
          user,
          { role: 'assistant', id: 'u', content: 'x', local_only: true, read_pause: {} },
          { role: 'assistant', id: 'u:notice:0', content: 'y' },
          answer,
        ];
        const { stateRoot, workspace, transcript } = await transcriptIn(base, messages);
        const refusal = 'duplicate transcript record "m:u:notice:0"';
        const read = await readJsonlSession(transcript);
        expect(read.problems.map(({ message }) => message).join('\n')).toContain(refusal);
        expect(read.status).not.toBe('ok');
        const run = await resume(stateRoot, workspace);
        expect(run.stderr).toContain(refusal);
        expect(run.code).toBe(1);
      } finally {
        await rm(base, { recursive: true, force: true });
      }
    });
  },
);
