import { mkdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { movedProject } from '../support/sessions/relocation-fixture.js';
import { treeDigest } from '../support/tree-digest.js';

describe('relocate run again once it finished', () => {
  it('says plainly the move is done, exit 0, and changes nothing', async () => {
    const { home, from, to, v4, jsonl } = await movedProject();
    const first = await runCliChild(['relocate', from, to, '--home', home]);
    expect(first.code, first.stderr).toBe(0);
    const before = await treeDigest(home);
    const again = await runCliChild(['relocate', from, to, '--home', home]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`nothing is left under the slug of ${from}`);
    expect(again.stdout).toContain('nothing left to relocate');
    const one = await runCliChild(['relocate', from, to, '--home', home, '--session', v4[0]!]);
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(one.stdout).toContain(`session ${v4[0]} is already under the slug of ${to}`);
    // As every command takes a session: the start of its id.
    const prefix = await runCliChild(['relocate', from, to, '--home', home, '--session', 'legacy']);
    expect([prefix.code, prefix.stderr]).toEqual([0, '']);
    expect(prefix.stdout).toContain(`session ${jsonl} is already under the slug of ${to}`);
    expect(await treeDigest(home)).toBe(before);
  });

  it('takes the start of a session id for --session, and refuses one that starts several', async () => {
    const { home, from, to, jsonl } = await movedProject();
    // The fixture's two sessions-v4 ids differ only at their end; its transcript is legacy-transcript.
    const several = await runCliChild(['relocate', from, to, '--home', home, '--session', 'a', '--dry-run']);
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('RX_AMBIGUOUS_SESSION');
    const one = await runCliChild(['relocate', from, to, '--home', home, '--session', 'legacy']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(jsonl);
  });

  it('still refuses, exit 2, an old folder whose sessions are nowhere, and a --session id in neither store', async () => {
    const { home, from, to } = await movedProject();
    const unknown = await runCliChild(['relocate', from, to, '--home', home, '--session', 'no-such-id']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('RX_SESSION_NOT_FOUND');
    const nowhere = await runCliChild(['relocate', `${from}-other`, to, '--home', home]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toContain('nothing to relocate');
  });

  it('tells a mistyped old folder from a finished move once the new folder has sessions: exit 2, never "nothing left"', async () => {
    const { home, from, to } = await movedProject();
    expect((await runCliChild(['relocate', from, to, '--home', home])).code).toBe(0);
    const before = await treeDigest(home);
    const typo = await runCliChild(['relocate', `${from}x`, to, '--home', home]);
    expect(typo.stdout).not.toContain('nothing left');
    expect(typo.stderr).toContain('RX_SESSION_NOT_FOUND');
    expect(typo.stderr).toContain('no relocation of it is recorded here');
    expect(typo.code).toBe(2);
    // The finished move is still said as done.
    const again = await runCliChild(['relocate', from, to, '--home', home]);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toContain('nothing left to relocate');
    expect(await treeDigest(home)).toBe(before);
    // And once its sessions have moved on (relocated again), by the record alone.
    const further = `${to}-further`;
    await mkdir(further);
    const onward = await runCliChild(['relocate', to, further, '--home', home, '--force']);
    expect(onward.code, onward.stderr).toBe(0);
    const once = await runCliChild(['relocate', from, to, '--home', home]);
    expect([once.code, once.stderr]).toEqual([0, '']);
    expect(once.stdout).toContain(`its move to ${to} finished`);
  });
});
