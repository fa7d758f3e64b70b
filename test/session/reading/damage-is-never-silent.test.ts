import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError, openLogSession, RxError, type OpenedSession } from '../../../src/index.js';
import { appendBatch, copySession, editLog, framesOf, type LoggedFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';
import { tempDir } from '../../support/temp-dir.js';
import { drain } from '../../support/drain.js';

const source = fixture('tool-calls');

/** Flips the last byte (part of the zstd content checksum) of the frame at `index`. */
async function flipFrame(dir: string, pick: (frames: LoggedFrame[]) => LoggedFrame): Promise<LoggedFrame> {
  const frame = pick(await framesOf(dir));
  await editLog(dir, (log) => {
    log[frame.offset + frame.bytes - 1]! ^= 0x01;
    return log;
  });
  return frame;
}

const views = (session: OpenedSession) => ({
  transcript: session.transcript(),
  modelView: session.modelView(),
  personView: session.personView(),
  records: session.records(),
});

describe('a damaged session: every view gives what precedes the damage, then the coded error read() reports', () => {
  it('a bad frame in the middle of the log', async () => {
    const whole = await openLogSession(source.dir);
    const dir = await copySession(source.dir);
    const frames = await framesOf(dir);
    const bad = await flipFrame(dir, (all) => all[Math.floor(all.length / 2)]!);
    const session = await openLogSession(dir);
    const read = await session.read();
    expect(read.status).toBe('damaged');
    expect(read.refusal).toBeInstanceOf(DamagedStoreError);
    expect(read.problems[0]).toMatchObject({ code: read.refusal!.code, data: { offset: bad.offset } });

    for (const [name, iterator] of Object.entries(views(session))) {
      const { items, error } = await drain(iterator as AsyncIterable<unknown>);
      expect(error, name).toBeInstanceOf(RxError);
      expect(error, name).toMatchObject({ code: read.refusal!.code, data: { offset: bad.offset } });
      // What was yielded is the verified beginning of the whole session's view, and shorter than it.
      const full = (await drain(views(whole)[name as keyof ReturnType<typeof views>] as AsyncIterable<unknown>)).items;
      expect(items.length, name).toBeLessThan(full.length);
      expect(items, name).toEqual(full.slice(0, items.length));
    }
    const events = await drain(session.events());
    expect(events.error).toMatchObject({ code: read.refusal!.code });
    expect(events.items.every(({ batch }) => batch.end <= bad.offset)).toBe(true);
    expect(frames.length).toBeGreaterThan(10);
  });

  it('a payload Reasonix would refuse: the views stop before it, and readSince and events() refuse it too', async () => {
    const dir = await copySession(source.dir);
    const before = (await drain((await openLogSession(dir)).personView())).items;
    await appendBatch(dir, [
      {
        kind: 'message/complete',
        payload: { message: { role: 'user', id: 'rx-extra', content: 'hi', host_authored: true } },
      },
    ]);
    await appendBatch(dir, [
      { kind: 'message/complete', payload: { message: { role: 'user', id: 'rx-after', content: 'after the damage' } } },
    ]);
    const session = await openLogSession(dir);
    const read = await session.read();
    expect(read.status).toBe('damaged');
    expect(read.refusal).toMatchObject({
      code: 'RX_STRICT_PAYLOAD',
      message: expect.stringMatching(/invalid message\/complete payload at \d+: unknown field "host_authored"/),
    });
    const person = await drain(session.personView());
    expect(person.items).toEqual(before);
    expect(person.error).toMatchObject({ code: 'RX_STRICT_PAYLOAD' });
    // Nothing past the refused payload is replayed, not even a valid message after it.
    expect(read.projection.transcript.map(({ message }) => message.id)).not.toContain('rx-after');
    await expect(session.readSince()).rejects.toMatchObject({ code: 'RX_STRICT_PAYLOAD' });
    expect((await drain(session.events())).error).toMatchObject({ code: 'RX_STRICT_PAYLOAD' });
  });

  it('no hygiene finding is invented by the cut: the turn open at the damage is not reported as never ended', async () => {
    const dir = await copySession(source.dir);
    // Damage the frame right after the first bash call's tool/call event: its turn is open there, its call unanswered.
    await flipFrame(dir, (all) => {
      const call = all.findIndex(
        (frame) => (frame.record.event as { kind?: string } | undefined)?.kind === 'tool/call',
      );
      return all[call + 1]!;
    });
    const { stdout, code } = await runCli(['inspect', dir, '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.status).toBe('damaged');
    const said = report.hygiene.findings.map((finding: { code: string }) => finding.code);
    expect(said).not.toContain('RX_DANGLING_TOOL_CALL');
    expect(said).not.toContain('RX_INTERRUPTED_TURN');
    expect(report.problems[0].code).toBe('RX_DAMAGED_STORE');
    // Nor an index record of a command that seems to have printed nothing: its result may lie past the damage.
    const records = await drain((await openLogSession(dir)).records());
    expect(records.error).toMatchObject({ code: 'RX_DAMAGED_STORE' });
    expect(records.items.filter((record) => record.type === 'command')).toEqual([]);
    expect(records.items.map((record) => record.type)).toContain('message');
  });

  it.skipIf(!reasonixBinary())(reasonixTitle('the real Reasonix refuses the same copy'), async () => {
    const dir = await copySession(source.dir);
    await flipFrame(dir, (all) => all[Math.floor(all.length / 2)]!);
    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Go on.' });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/damaged session store: decode v4 frame/);
  });
});

describe('the CLI prints what was verified, then one error line, and exits 1', () => {
  it('cat, cat --records and inspect --messages of a session with a bad middle frame', async () => {
    const dir = await copySession(source.dir);
    const bad = await flipFrame(dir, (all) => all[Math.floor(all.length / 2)]!);
    const whole = (await runCli(['cat', source.dir])).stdout.trim().split('\n');
    for (const args of [
      ['cat', dir],
      ['cat', dir, '--records'],
      ['inspect', dir, '--messages'],
    ]) {
      const { code, stdout, stderr } = await runCli(args);
      expect(code, args.join(' ')).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`RX_DAMAGED_STORE: .*events\\.frames at offset ${bad.offset}: decode v4 frame`),
      );
      if (args[0] === 'cat' && args.length === 2) {
        const printed = stdout.trim().split('\n');
        expect(printed.length).toBeGreaterThan(0);
        expect(printed.length).toBeLessThan(whole.length);
        expect(printed).toEqual(whole.slice(0, printed.length));
      }
    }
  });

  it('cat of a JSONL transcript whose third line is not JSON prints the first two messages and names line 3', async () => {
    const dir = await tempDir();
    const file = join(dir, 'broken.jsonl');
    const lines = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'second' },
    ].map((message) => JSON.stringify(message));
    await writeFile(
      file,
      `${lines.join('\n')}\n{"role": "user", "content": "cut\n${JSON.stringify({ role: 'assistant', content: 'fourth' })}\n`,
    );
    const { code, stdout, stderr } = await runCli(['cat', file]);
    expect(code).toBe(1);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).content),
    ).toEqual(['first', 'second']);
    expect(stderr).toMatch(/RX_JSONL_LINE: .*broken\.jsonl at offset \d+: line 3: not JSON/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('export of a damaged session is refused (exit 1), writes nothing, and points to salvage', async () => {
    const dir = await copySession(source.dir);
    await flipFrame(dir, (all) => all[Math.floor(all.length / 2)]!);
    const to = join(await tempDir(), 'out.jsonl');
    const { code, stderr } = await runCli(['export', dir, '--to', to]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /RX_EXPORT_REFUSED: .*Reasonix would refuse this session \(RX_DAMAGED_STORE: decode v4 frame.*rxstore salvage/,
    );
    expect(existsSync(to)).toBe(false);
    expect(existsSync(`${to}.meta`)).toBe(false);
  });

  it('export of a session with no messages is refused: Reasonix does not resume an empty transcript', async () => {
    const dir = await copySession(source.dir);
    await writeFile(join(dir, 'events.frames'), '');
    const to = join(await tempDir(), 'empty.jsonl');
    const { code, stderr } = await runCli(['export', dir, '--to', to]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/RX_EXPORT_REFUSED: .*no messages.*Reasonix does not resume an empty transcript/);
    expect(existsSync(to)).toBe(false);
    expect(await readFile(join(dir, 'events.frames'), 'utf8')).toBe('');
  });
});
