import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateJsonlToV4 } from '../../src/migrate/jsonl-to-v4.js';
import { readSession } from '../../src/session/verdict/read-session.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const source = fixture('tool-calls');

describe('rxstore export', () => {
  it('to JSONL, then migrate jsonl-to-v4, gives back the same messages', async () => {
    const stateRoot = await tempDir();
    const out = join(stateRoot, 'sessions', 'exported.jsonl');
    await mkdir(join(out, '..'));
    const exported = await runCli(['export', source.dir, '--to', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(await readFile(`${out}.meta`, 'utf8'))).toMatchObject({
      id: 'exported',
      workspace_root: source.workspace,
    });
    const report = await migrateJsonlToV4(out, { stateRoot, cwd: source.workspace });
    const [original, roundTrip] = await Promise.all([readSession(source.dir), readSession(report.targetDir)]);
    expect(roundTrip.status).toBe('ok');
    expect(roundTrip.projection.transcript.map((entry) => entry.message)).toEqual(
      original.projection.transcript.map((entry) => entry.message),
    );
    // A second export finds exactly its own files there (as after an interrupted run) and leaves them.
    const written = await readFile(out);
    const second = await runCli(['export', source.dir, '--to', out]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^already exported: .* holds? exactly these \d+ messages; nothing was written\n$/);
    expect(await readFile(out)).toEqual(written);
    // A file holding anything else is not written over (exit 1), the file named once, unless the user says --force.
    const mine = `${written.toString('utf8')}{"role":"user","content":"mine"}\n`;
    await writeFile(out, mine);
    const again = await runCli(['export', source.dir, '--to', out]);
    expect(again).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `rxstore: RX_EXPORT_REFUSED: ${out} already exists and holds something else; --force writes over it\n`,
    });
    expect(await readFile(out, 'utf8')).toBe(mine);
    const forced = await runCli(['export', source.dir, '--to', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(out)).toEqual(written);
  });

  it('to JSON, as one document of the person’s view', async () => {
    const out = join(await tempDir(), 'session.json');
    expect((await runCli(['export', source.dir, '--to', out, '--format', 'json', '--view', 'person'])).code).toBe(0);
    const document = JSON.parse(await readFile(out, 'utf8'));
    expect(document).toMatchObject({ id: source.id, view: 'person', workspace: source.workspace });
    const hostIds = (await readSession(source.dir)).projection.transcript
      .filter((entry) => entry.message.origin === 'host')
      .map((entry) => entry.message.id);
    expect(hostIds.length).toBeGreaterThan(0);
    expect(document.messages.filter((message: { id: string }) => hostIds.includes(message.id))).toEqual([]);
    expect(document.messages.map((message: { role: string }) => message.role)).toContain('tool');
  });

  it.skipIf(!reasonixBinary())(reasonixTitle('to JSONL is resumed by the real Reasonix'), async () => {
    const home = await tempDir('rxstore-export-home-');
    const out = join(home, 'exported.jsonl');
    expect((await runCli(['export', source.dir, '--to', out])).code).toBe(0);
    const workspace = join(home, 'ws');
    await mkdir(workspace);
    const mock = await startMockModel([{ text: 'Back again.' }]);
    try {
      const run = await runReasonix({ home, cwd: workspace, args: ['run', '--resume', out, 'Where were we?'], mock });
      expect(run.code, run.stderr).toBe(0);
      const contents = mock.chatRequests()[0]!.messages.map((message) => message.content);
      expect(contents).toContain('Done: new.txt created and beta capitalised in notes.txt.');
    } finally {
      await mock.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
