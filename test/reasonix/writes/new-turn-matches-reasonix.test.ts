import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { modelView } from '../../../src/session/replay/views.js';
import { salvageSession } from '../../../src/session/writing/salvage-session.js';
import { treeDigest } from '../../support/tree-digest.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { eventsOf, newTurnCases } from '../../support/reasonix/new-turn-cases.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Whether Reasonix 1.38.11 takes a new turn in a session it opens: each case is appended to a real
 * session, the real binary asked for a turn in it (`run --resume <id> "…"` against the mock
 * model), and its answer — the turn taken, or `error: transcript gate: … at message N` — is what
 * rxstore's verdict must say.
 */
const source = fixture('plain-chat');

describe.skipIf(!reasonixBinary())(reasonixTitle('a new turn: taken or refused as Reasonix 1.38.11 decides'), () => {
  it.concurrent.each(newTurnCases)('$case', async (each) => {
    const dir = await copySession(source.dir);
    const base = each.replace ? 0 : modelView((await readSession(dir)).projection).length;
    await appendBatch(dir, eventsOf(each));
    const read = await readSession(dir, { keep: 'index' });
    const resumed = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Go on.' });
    await rm(resumed.home, { recursive: true, force: true });
    const said = `${resumed.stdout}\n${resumed.stderr}`.split('\n').find((line) => line.startsWith('error: ')) ?? '';
    const expected = each.refused?.replace(/%(\d+)/, (_, at: string) => String(base + Number(at)));
    // The table says what the binary said; rxstore says the same.
    expect(said, resumed.stderr).toBe(expected ? `error: ${expected}` : '');
    expect(resumed.code).toBe(expected ? 1 : 0);
    expect(read.status).toBe(expected ? 'turn-refused' : 'ok');
    expect(read.projection.newTurn).toEqual(
      expected
        ? { accepted: false, reason: expected, index: Number(/at message (\d+)$/.exec(expected)?.[1]) }
        : { accepted: true },
    );
    if (!expected) return;

    // The way out: a salvaged copy takes a new turn in the real Reasonix; the original is left as it was.
    const digest = await treeDigest(dir);
    const salvaged = await salvageSession(dir);
    expect(await treeDigest(dir)).toBe(digest);
    expect(salvaged.turnRepair).toMatchObject({
      refusal: expected,
      changes: expect.arrayContaining([expect.anything()]),
    });
    expect((await readSession(salvaged.newDir)).status).toBe('ok');
    const goesOn = await resumeWithReasonix(salvaged.newDir, { workspace: source.workspace, prompt: 'Go on.' });
    await rm(goesOn.home, { recursive: true, force: true });
    expect(
      goesOn.stderr.split('\n').filter((line) => line.startsWith('error: ')),
      goesOn.stderr,
    ).toEqual([]);
    expect(goesOn.code).toBe(0);
    // What was changed is there as it was: the transcript keeps every original message (a replaced
    // model list is no message of it: the salvage's diagnostic event keeps what it changed).
    const transcript = (await readSession(salvaged.newDir)).projection.transcript.map(({ message }) => message);
    if (!each.replace)
      for (const message of each.messages) expect(transcript).toContainEqual(expect.objectContaining(message));
    const originals = each.messages.flatMap((message) => [
      JSON.stringify(message),
      JSON.stringify({ tool_call_id: message.tool_call_id, name: message.name }),
      ...((message.tool_calls as Record<string, string>[] | undefined) ?? []).flatMap((call) => [
        call.arguments,
        call.name,
        call.id,
        JSON.stringify(message.tool_calls),
      ]),
    ]);
    for (const changed of salvaged.turnRepair!.changes)
      if (changed.before !== '') expect(originals).toContain(changed.before);
  });
});
