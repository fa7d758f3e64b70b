import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/session/writing/create-session.js';
import { runCliChild } from '../support/cli-child.js';
import { reasonixBinary, reasonixTitle, simpleWorkspaceSlug } from '../support/reasonix/reasonix.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { createdBatch, resumeCheck } from '../support/reasonix/resume-check.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * `relocate` ends with a command that resumes one moved session from the new folder. A session never spoken in
 * (a `reasonix serve` leaves one in the store at each start) is passed over by `reasonix --resume` once the
 * store's catalog holds it: named first, its command answered "no session matches". Judged by Reasonix 1.38.11.
 */
const empty = 'aa000000000000000000000000000001';
const spoken = 'bb000000000000000000000000000002';
const created = createdBatch;

const resume = resumeCheck;

describe.skipIf(!reasonixBinary())(reasonixTitle('relocate’s command to resume one session'), () => {
  it('names a session Reasonix finds from the new folder, not one it passes over as empty', async () => {
    const home = await tempDir('rxstore-relocate-found-');
    const base = await tempDir('rxstore-relocate-found-ws-');
    const [from, to] = [join(base, 'old'), join(base, 'new')];
    await mkdir(from);
    const store = join(home, 'projects', simpleWorkspaceSlug(from), 'sessions-v4');
    await mkdir(store, { recursive: true });
    const said = { operationId: 'said', events: [complete({ role: 'user', id: messageId(), content: 'hello' })] };
    await createSession({ storeDir: store, sessionId: empty, batches: [created] });
    await createSession({ storeDir: store, sessionId: spoken, batches: [created, said] });
    // A run in the workspace writes the store's catalog, which then holds the empty session as empty.
    expect((await resume(home, from, spoken)).code).toBe(0);
    await rename(from, to);
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    const id = /reasonix --resume (\S+)$/m.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBe(spoken);
    expect((await resume(home, to, id!)).code).toBe(0);
    // The empty one is passed over from there, as before the move.
    expect((await resume(home, to, empty)).stderr).toContain(`no session matches "${empty}"`);
  });
});
