import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../src/session/verdict/read-session.js';
import { createSession } from '../../src/session/writing/create-session.js';
import { runCliChild } from '../support/cli-child.js';
import { movedProject } from '../support/sessions/relocation-fixture.js';
import { sampleBatches } from '../support/sessions/sample-session.js';

/** A desktop session (kept by id, not by slug) whose header.json names `cwd`. */
async function desktopSession(home: string, id: string, cwd: string): Promise<string> {
  const dir = join(home, 'desktop-sessions-v5', 'by-id', id);
  await createSession({
    storeDir: join(home, 'desktop-sessions-v5', 'by-id'),
    sessionId: id,
    batches: sampleBatches(),
  });
  await writeFile(
    join(dir, 'header.json'),
    `{"schemaVersion":1,"sessionId":${JSON.stringify(id)},"createdAt":"2026-11-30T05:50:59.806232714Z","cwd":${JSON.stringify(cwd)},"origin":"new"}\n`,
  );
  return dir;
}

describe('relocate and the desktop app’s sessions', () => {
  it('points header.json cwd of the desktop sessions of the old folder at the new one, every other byte and session kept', async () => {
    const { home, from, to } = await movedProject();
    const ours = await desktopSession(home, 'd'.repeat(32), from);
    const docker = await desktopSession(home, 'e'.repeat(32), `${from}-docker`);
    const [logBefore, dockerHeader, oursHeader] = await Promise.all([
      readFile(join(ours, 'events.frames')),
      readFile(join(docker, 'header.json'), 'utf8'),
      readFile(join(ours, 'header.json'), 'utf8'),
    ]);

    const dry = await runCliChild(['relocate', from, to, '--home', home, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('1 desktop session');
    expect(await readFile(join(ours, 'header.json'), 'utf8')).toBe(oursHeader);

    const run = await runCliChild(['relocate', from, to, '--home', home]);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(ours, 'header.json'), 'utf8')).toBe(
      oursHeader.replace(JSON.stringify(from), JSON.stringify(to)),
    );
    expect(await readFile(join(docker, 'header.json'), 'utf8')).toBe(dockerHeader);
    expect(await readFile(join(ours, 'events.frames'))).toEqual(logBefore);
    expect((await readSession(ours)).status).toBe('ok');
  });

  it('moves the desktop sessions’ cwd only when the whole workspace moves, not with --session', async () => {
    const { home, from, to, v4 } = await movedProject();
    const ours = await desktopSession(home, 'd'.repeat(32), from);
    const before = await readFile(join(ours, 'header.json'), 'utf8');
    const run = await runCliChild(['relocate', from, to, '--home', home, '--session', v4[1]!]);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(ours, 'header.json'), 'utf8')).toBe(before);
  });
});
