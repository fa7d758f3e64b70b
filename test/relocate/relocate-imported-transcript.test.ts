import { appendFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { jsonlOf, movedProject, storeOf } from '../support/sessions/relocation-fixture.js';

// Observed with the real Reasonix: after the move, `run --resume <transcript id>` from the new folder
// imports the transcript again under a new id (the id follows the transcript's path), so the session it
// became before the move is the one that goes on.
describe('relocate and a transcript Reasonix already imported', () => {
  it('names, in the plan and the run, the session to resume instead of the transcript id', async () => {
    const { home, from, to, v4, jsonl } = await movedProject();
    const dry = await runCliChild(['relocate', from, to, '--home', home, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `note: transcript ${jsonl} was imported as session ${v4[1]}: from ${to} resume that id`,
    );
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`\`--resume ${jsonl}\` there would import the transcript again as a new session`);
  });

  it('says a transcript written to since it was imported holds what that session lacks', async () => {
    const { home, from, to, v4, jsonl } = await movedProject();
    await appendFile(
      join(jsonlOf(home, from), `${jsonl}.jsonl`),
      `${JSON.stringify({ role: 'user', content: 'later' })}\n`,
    );
    const dry = await runCliChild(['relocate', from, to, '--home', home, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `note: transcript ${jsonl} changed since it was imported as session ${v4[1]}: what was written to it since is in the transcript alone; from ${to} \`--resume ${jsonl}\` imports it as it is now, as a new session`,
    );
    expect(dry.stdout).not.toContain('resume that id');
  });

  it('says nothing of the kind for a transcript never imported', async () => {
    const { home, from, to } = await movedProject();
    await rm(join(storeOf(home, from), 'migration-map.json'));
    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('was imported as session');
  });
});
