import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CursorMismatchError,
  openLogSession,
  type IndexRecord,
  type OpenedLogSession,
  type RecordsCursor,
} from '../../../src/index.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { FIXTURE_NAMES, fixture } from '../../support/fixtures.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import { layForResume, reasonixBinary, reasonixTitle, runReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';
import { RecordIndex, wholeRecords } from '../../support/sessions/record-index.js';
import { createSession } from '../../../src/session/writing/create-session.js';

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

/** Reads records in pieces of `sizes` batches each (the rest in the last piece), storing each cursor as JSON in between, into an index by key. */
async function inPieces(session: OpenedLogSession, sizes: number[]): Promise<RecordIndex> {
  const index = new RecordIndex();
  let saved: string | undefined;
  for (const size of [...sizes, undefined]) {
    // A piece of no batches is none (maxBatches must be 1 or more): the read goes on from where it was.
    if (size === 0) continue;
    let last: RecordsCursor | undefined;
    for await (const piece of session.recordsSince(
      saved === undefined ? undefined : (JSON.parse(saved) as RecordsCursor),
      size === undefined ? {} : { maxBatches: size },
    )) {
      index.apply(piece.records);
      if (piece.session) index.session = piece.session;
      last = piece.cursor;
    }
    if (last) saved = JSON.stringify(last);
  }
  return index;
}

const byKey = (records: Map<string, IndexRecord>) => [...records].sort(([a], [b]) => (a < b ? -1 : 1));

describe('records since a cursor add up to the records of the whole session', () => {
  for (const name of FIXTURE_NAMES) {
    it(`${name}: cut at every batch boundary, and read one batch at a time`, async () => {
      const session = await openLogSession(fixture(name).dir);
      const whole = byKey((await wholeRecords(fixture(name).dir)).byKey);
      const batches = (await session.readSince()).batches.length;
      expect(batches).toBeGreaterThan(0);
      for (let cut = 0; cut <= batches; cut += 1) {
        expect(byKey((await inPieces(session, [cut])).current()), `cut after ${cut} batches`).toEqual(whole);
      }
      expect(
        byKey(
          (
            await inPieces(
              session,
              Array.from({ length: batches }, () => 1),
            )
          ).current(),
        ),
      ).toEqual(whole);
    });
  }

  it('a shell command committed in one batch and its result in a later one is given once, with its output and exit code', async () => {
    const session = await openLogSession(fixture('tool-calls').dir);
    const pieces = await all(session.recordsSince(undefined, { maxBatches: 1000 }));
    const commands = pieces.flatMap((piece) => piece.records).filter((record) => record.type === 'command');
    expect(commands.map((record) => [record.command, record.state, record.exitCode])).toEqual([
      ['echo listing && ls', 'completed', 0],
      ['ls missing-dir', 'failed', 2],
    ]);
    // The call waits in the cursor between its batch and its result's.
    expect(pieces.some((piece) => piece.cursor.pending.some((item) => item.call.name === 'bash' && item.held))).toBe(
      true,
    );
  });

  it('a cursor that is not one, or from another log, is refused with CursorMismatchError', async () => {
    const session = await openLogSession(await copySession(fixture('plain-chat').dir));
    await expect(all(session.recordsSince({ version: 2 } as unknown as RecordsCursor))).rejects.toBeInstanceOf(
      CursorMismatchError,
    );
    const other = await openLogSession(fixture('titled').dir);
    const [first] = await all(other.recordsSince(undefined, { maxBatches: 1 }));
    await expect(all(session.recordsSince(first!.cursor))).rejects.toThrow(/taken from session/);
  });

  it('a cursor whose sequence the log does not continue at is a cursor mismatch, not damage', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const session = await openLogSession(dir);
    const { cursor } = await session.readSince(undefined, { maxBatches: 1 });
    await expect(session.readSince({ ...cursor, nextSequence: cursor.nextSequence + 5 })).rejects.toMatchObject({
      code: 'RX_CURSOR_MISMATCH',
      message: expect.stringMatching(/does not continue at sequence/),
    });
    await expect(session.readSince({ ...cursor, version: 7 } as never)).rejects.toMatchObject({
      code: 'RX_CURSOR_MISMATCH',
      message: expect.stringMatching(/not a log cursor rxstore made: version/),
    });
  });

  it('a log rewritten before the cursor (bytes changed, size kept) is noticed by the digest', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    const session = await openLogSession(dir);
    const { cursor } = await session.readSince(undefined, { maxBatches: 3 });
    await appendBatch(dir, [{ kind: 'session/title', payload: { title: 'later' } }]);
    expect((await session.readSince(cursor)).batches.length).toBeGreaterThan(0);
    const { readFile } = await import('node:fs/promises');
    const log = await readFile(join(dir, 'events.frames'));
    log[cursor.offset - 1] = log[cursor.offset - 1]! ^ 0xff;
    await writeFile(join(dir, 'events.frames'), log);
    await expect(session.readSince(cursor)).rejects.toThrow(/the bytes before the offset changed/);
  });
});

describe.skipIf(!reasonixBinary())(
  reasonixTitle('records since a cursor on a session the real Reasonix appends to'),
  () => {
    it('before and after a resumed turn with a shell command, the pieces add up to the whole', async () => {
      const source = fixture('tool-calls');
      const home = await tempDir('rxstore-records-');
      const dir = await layForResume(source.dir, home, source.workspace);
      const session = await openLogSession(dir);
      const first = await all(session.recordsSince());
      const mock = await startMockModel([
        { text: 'Checking.', toolCalls: [{ id: 'call_late', name: 'bash', arguments: { command: 'echo appended' } }] },
        { text: 'It printed appended.' },
      ]);
      try {
        const run = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', source.id, 'Run echo appended.'],
          mock,
          permissionMode: 'danger-full-access',
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await mock.close();
      }
      const second = await all(session.recordsSince(first.at(-1)!.cursor));
      const index = new RecordIndex();
      for (const piece of [...first, ...second]) {
        index.apply(piece.records);
        if (piece.session) index.session = piece.session;
      }
      expect(byKey(index.current())).toEqual(byKey((await wholeRecords(dir)).byKey));
      const appended = second.flatMap((piece) => piece.records).filter((record) => record.type === 'command');
      expect(appended).toEqual([
        expect.objectContaining({
          command: 'echo appended',
          state: 'completed',
          exitCode: 0,
          output: expect.stringContaining('appended'),
        }),
      ]);
    });

    it('a resumed turn that reuses a tool-call id Reasonix then refuses: the read since the cursor is refused too, and the cursor file kept', async () => {
      const { runCli } = await import('../../support/inspect-json-schema.js');
      const source = fixture('tool-calls');
      const home = await tempDir('rxstore-records-');
      const dir = await layForResume(source.dir, home, source.workspace);
      const cursorFile = join(await tempDir(), 'tool-calls.cursor');
      expect((await runCli(['cat', dir, '--records', '--cursor', cursorFile])).code).toBe(0);
      const kept = await readFile(cursorFile, 'utf8');
      // The model answers with a call id the session already used for a call that has its result.
      const reused = {
        text: 'Again.',
        toolCalls: [{ id: 'call_ls', name: 'bash', arguments: { command: 'echo again' } }],
      };
      const mock = await startMockModel([reused, { text: 'Done again.' }]);
      try {
        const run = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', source.id, 'Run it again.'],
          mock,
          permissionMode: 'danger-full-access',
        });
        expect(run.code, run.stderr).toBe(0);
      } finally {
        await mock.close();
      }
      // Reasonix wrote it, and now refuses to open it.
      const judge = await startMockModel([{ text: 'Never sent.' }]);
      try {
        const refused = await runReasonix({
          home,
          cwd: source.workspace,
          args: ['run', '--resume', source.id, 'Once more.'],
          mock: judge,
          permissionMode: 'danger-full-access',
        });
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toMatch(/duplicate transcript record "tool:call_ls"/);
      } finally {
        await judge.close();
      }
      const whole = await runCli(['cat', dir, '--records']);
      expect(whole.code).toBe(1);
      expect(whole.stderr).toMatch(/duplicate transcript record "tool:call_ls"/);
      // What precedes the refused batch is printed and its cursor kept; the refusal ends the command.
      const since = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
      expect(since.code).toBe(1);
      expect(since.stderr).toMatch(/RX_STRICT_PAYLOAD: .*duplicate transcript record "tool:call_ls"/);
      // The whole read prints every record (Reasonix refuses the transcript as a whole); the read since the cursor stops before the refused batch.
      expect(since.stdout).not.toBe('');
      const wholeLines = new Set(whole.stdout.trim().split('\n'));
      for (const line of since.stdout.trim().split('\n')) expect([...wholeLines], line).toContain(line);
      const advanced = await readFile(cursorFile, 'utf8');
      expect(advanced).not.toBe(kept);
      // Read again from there: nothing more, the same refusal, the file as it was.
      const again = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
      expect([again.code, again.stdout]).toEqual([1, '']);
      expect(again.stderr).toBe(since.stderr);
      expect(await readFile(cursorFile, 'utf8')).toBe(advanced);
    });
  },
);

describe('rxstore cat --records --cursor FILE', () => {
  it('prints everything the first time, then only what was committed since, keeping the cursor in the file', async () => {
    const { runCli } = await import('../../support/inspect-json-schema.js');
    const { existsSync } = await import('node:fs');
    const dir = await copySession(fixture('tool-calls').dir);
    const cursorFile = join(await tempDir(), 'tool-calls.cursor');
    const whole = await runCli(['cat', dir, '--records']);
    const first = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(first.code, first.stderr).toBe(0);
    // The same records, and a session line when the title or workspace changes.
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; workspace?: string | null });
    expect(
      lines
        .filter((line) => line.type !== 'session')
        .map((line) => JSON.stringify(line))
        .join('\n'),
    ).toBe(whole.stdout.trim());
    expect(lines.filter((line) => line.type === 'session').at(-1)).toMatchObject({
      type: 'session',
      workspace: fixture('tool-calls').workspace,
      title: null,
    });
    expect(existsSync(cursorFile)).toBe(true);
    const again = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    // A cursor file of an earlier version (records without keys) is refused, saying what to do, and left as it is.
    const current = await readFile(cursorFile, 'utf8');
    await writeFile(cursorFile, JSON.stringify({ ...(JSON.parse(current) as object), version: 2 }));
    const old = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(
      /RX_CURSOR_MISMATCH: .*a version 2 records cursor, from an earlier rxstore.*remove .* to read the session from the start/,
    );
    await writeFile(cursorFile, current);
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-appended', content: 'one more question', origin: 'user' } },
      },
    ]);
    const later = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(later.code, later.stderr).toBe(0);
    expect(
      later.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      expect.objectContaining({ type: 'message', role: 'user', text: 'one more question', messageId: 'rx-appended' }),
    ]);
    // A cursor file that is not one is refused, and left as it is.
    await writeFile(cursorFile, 'garbage');
    const refused = await runCli(['cat', dir, '--records', '--cursor', cursorFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/RX_CURSOR_MISMATCH/);
    // Another session's cursor: refused, naming the file to remove to start over, and the file kept.
    const other = await copySession(fixture('plain-chat').dir);
    const otherCursor = join(await tempDir(), 'plain-chat.cursor');
    expect((await runCli(['cat', other, '--records', '--cursor', otherCursor])).code).toBe(0);
    const kept = await readFile(otherCursor, 'utf8');
    const wrong = await runCli(['cat', dir, '--records', '--cursor', otherCursor]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(
      new RegExp(
        `RX_CURSOR_MISMATCH: .*it was taken from session .*; remove ${otherCursor.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} to read the session from the start`,
      ),
    );
    expect(await readFile(otherCursor, 'utf8')).toBe(kept);
  });
});

describe('records since, of tool results', () => {
  it('a call of any other tool is a call record with its result; a result no call waits for is a record of its own, a message that only names a call none', async () => {
    const storeDir = await tempDir();
    const say = (message: Record<string, unknown>) => ({ kind: 'message/complete', payload: { message } });
    const created = await createSession({
      storeDir,
      sessionId: 'tool-results',
      batches: [
        {
          operationId: 'op-1',
          events: [
            say({ role: 'user', id: 'u1', content: 'list the files' }),
            say({
              role: 'assistant',
              id: 'a1',
              content: '',
              tool_calls: [
                { id: 'call-todo', name: 'todo_write', arguments: '{}' },
                { id: 'call-ls', name: 'bash', arguments: '{"command":"ls"}' },
              ],
            }),
          ],
        },
        {
          operationId: 'op-2',
          events: [
            // Not a tool's result: it names the call, but only a tool message answers it.
            say({ role: 'assistant', id: 'a2', content: 'still waiting', tool_call_id: 'call-ls' }),
            say({ role: 'tool', id: 't0', tool_call_id: 'call-nowhere', name: 'bash', content: 'answers no call' }),
            say({ role: 'tool', id: 't1', tool_call_id: 'call-todo', name: 'todo_write', content: 'noted' }),
            say({ role: 'tool', id: 't2', tool_call_id: 'call-ls', name: 'bash', content: 'README.md\nsrc\n' }),
          ],
        },
      ],
    });
    const session = await openLogSession(created.dir);
    const first = await all(session.recordsSince(undefined, { maxBatches: 1 }));
    const rest = await all(session.recordsSince(first.at(-1)!.cursor));
    const index = new RecordIndex();
    for (const piece of [...first, ...rest]) index.apply(piece.records);
    expect([...index.records.values()]).toEqual([
      expect.objectContaining({ type: 'message', role: 'user', text: 'list the files' }),
      expect.objectContaining({
        type: 'call',
        tool: 'todo_write',
        callId: 'call-todo',
        arguments: '{}',
        output: 'noted',
      }),
      expect.objectContaining({ type: 'command', command: 'ls', output: 'README.md\nsrc\n' }),
      expect.objectContaining({ type: 'message', role: 'assistant', text: 'still waiting' }),
      expect.objectContaining({
        type: 'result',
        tool: 'bash',
        callId: 'call-nowhere',
        messageId: 't0',
        output: 'answers no call',
      }),
    ]);
  });
});
