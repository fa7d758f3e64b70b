import { describe, expect, it } from 'vitest';
import { openSession, type IndexRecord } from '../../../src/index.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';

async function recordsOf(dir: string): Promise<IndexRecord[]> {
  const records: IndexRecord[] = [];
  for await (const record of (await openSession(dir)).records()) records.push(record);
  return records;
}

describe('indexer records', () => {
  it('list each bash command of the tool-calls fixture with the exit code, state and duration Reasonix stored, and each file touched with its path', async () => {
    const source = fixture('tool-calls');
    const records = await recordsOf(source.dir);
    const commands = records.filter((record) => record.type === 'command');
    // Reasonix stored `state: completed, exitCode: 0` for the first and `state: failed, exitCode: 2` for the second.
    expect(commands.map((record) => [record.command, record.state, record.exitCode])).toEqual([
      ['echo listing && ls', 'completed', 0],
      ['ls missing-dir', 'failed', 2],
    ]);
    for (const command of commands) expect(command.durationMs).toEqual(expect.any(Number));
    expect(commands[1]!.output).toMatch(/No such file or directory/);
    const files = records.filter((record) => record.type === 'file');
    expect(files.map((record) => [record.tool, record.action, record.path, record.state])).toEqual([
      ['read_file', 'read', 'notes.txt', 'completed'],
      ['write_file', 'write', 'new.txt', 'completed'],
      ['edit_file', 'edit', 'notes.txt', 'completed'],
    ]);
    expect(files[2]!.edits).toEqual([{ old: 'beta', new: 'BETA' }]);
    for (const record of records) expect(record).toMatchObject({ sessionId: source.id, workspace: source.workspace });
    // System prompts and host session-context messages are never indexed.
    expect(
      records.filter((record) => record.type === 'message' && /session-context|You are Reasonix/.test(record.text)),
    ).toEqual([]);
  });

  it('say a file edit failed when its result reports an error, so an indexer does not take it for a change', async () => {
    const dir = await copySession(fixture('tool-calls').dir);
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: {
          message: {
            role: 'assistant',
            id: 'rx-edit-call',
            content: '',
            tool_calls: [
              {
                id: 'call_unread',
                name: 'edit_file',
                arguments: '{"path":"notes.txt","old_string":"beta","new_string":"Beta"}',
              },
            ],
          },
        },
      },
      {
        kind: 'message/complete',
        payload: {
          message: {
            role: 'tool',
            id: 'rx-edit-result',
            tool_call_id: 'call_unread',
            name: 'edit_file',
            content: 'error: FS_NOT_OBSERVED: read notes.txt before editing it',
          },
        },
      },
    ]);
    const edits = (await recordsOf(dir)).flatMap((record) =>
      record.type === 'file' && record.action === 'edit' ? [record] : [],
    );
    expect(edits.map((record) => record.state)).toEqual(['completed', 'failed']);
  });

  it('come out of rxstore cat --records as JSONL', async () => {
    const { code, stdout } = await runCli(['cat', fixture('tool-calls').dir, '--records']);
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).type),
    ).toContain('command');
  });
});

describe('inspect reports how a session was left', () => {
  it('an interrupted turn and a failed one', async () => {
    const { stdout, code } = await runCli(['inspect', fixture('interrupted').dir, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.hygiene.interruptedTurns).toHaveLength(2);
    const said = report.hygiene.findings.map((finding: { message: string }) => finding.message).join('\n');
    expect(said).toMatch(/ended interrupted/);
    expect(said).toMatch(/ended failed/);
    expect((await runCli(['inspect', fixture('interrupted').dir])).stdout).toMatch(
      /RX_INTERRUPTED_TURN: turn \S+ ended interrupted/,
    );
  });

  it('--strict makes every warning an error: an interrupted turn exits 1, a compaction (a note) does not', async () => {
    const lenient = JSON.parse((await runCli(['inspect', fixture('interrupted').dir, '--json'])).stdout);
    expect(
      lenient.hygiene.findings
        .filter((finding: { code: string }) => finding.code === 'RX_INTERRUPTED_TURN')
        .map((finding: { severity: string }) => finding.severity),
    ).toEqual(['warning', 'warning']);
    const strict = await runCli(['inspect', fixture('interrupted').dir, '--json', '--strict']);
    expect(strict.code).toBe(1);
    const report = JSON.parse(strict.stdout);
    expect(report.status).toBe('ok');
    expect(
      report.hygiene.findings
        .filter((finding: { code: string }) => finding.code === 'RX_INTERRUPTED_TURN')
        .map((finding: { severity: string }) => finding.severity),
    ).toEqual(['error', 'error']);

    const compacted = await runCli(['inspect', fixture('compacted').dir, '--json', '--strict']);
    const findings = JSON.parse(compacted.stdout).hygiene.findings as { code: string; severity: string }[];
    expect(findings).toContainEqual(expect.objectContaining({ code: 'RX_COMPACTED', severity: 'note' }));
    expect(compacted.code).toBe(0);
    expect((await runCli(['inspect', fixture('plain-chat').dir, '--strict'])).code).toBe(0);
  });

  it('a compaction checkpoint, with the transcript keeping every message', async () => {
    const { stdout } = await runCli(['inspect', fixture('compacted').dir, '--json']);
    const report = JSON.parse(stdout);
    expect(report.hygiene.compactions).toHaveLength(1);
    expect(report.messages.total).toBe(19);
    expect((await runCli(['inspect', fixture('compacted').dir])).stdout).toMatch(
      /RX_COMPACTED: compaction checkpoint at sequence \d+/,
    );
  });
});
