// The command migrate prints is where's rule (resumeVerdict), told the folder the transcript was
// migrated into; the real Reasonix resumes the session from where that command says.
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { reasonixAbsentMessage, reasonixBinary, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const transcript = [
  { role: 'system', content: 'You help.' },
  { role: 'user', content: 'Remember the port 8080' },
  { role: 'assistant', content: 'Noted.' },
];

async function setUp() {
  const base = await realpath(await tempDir('rxstore-migrate-resume-'));
  const [home, workspace, elsewhere] = [join(base, 'home'), join(base, 'ws'), join(base, 'elsewhere')];
  await Promise.all([mkdir(home), mkdir(workspace), mkdir(elsewhere)]);
  const file = join(base, 'notes.jsonl');
  await writeFile(file, transcript.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return { base, home, workspace, elsewhere, file };
}

/** Runs the real Reasonix as the printed command does, from the folder it names, taking a turn in the session it names. */
async function runPrinted(command: string, home: string) {
  const [, folder, id] = /^cd (\S+) && REASONIX_HOME=\S+ reasonix --resume (\S+)$/.exec(command)!;
  const mock = await startMockModel([{ text: 'Going on.' }]);
  try {
    return await runReasonix({ home, cwd: folder!, args: ['run', '--resume', id!, 'Which port?'], mock });
  } finally {
    await mock.close();
  }
}

describe.skipIf(!reasonixBinary())(
  `migrate's resume command ${reasonixBinary() ? '' : `— skipped: ${reasonixAbsentMessage()}`}`,
  () => {
    it('into the store of --cwd, run from another folder: cd there, and Reasonix goes on with it', async () => {
      const { home, workspace, elsewhere, file } = await setUp();
      const run = await runCliChild(['migrate', 'jsonl-to-v4', file, '--home', home, '--cwd', workspace], {
        cwd: elsewhere,
      });
      expect(run.code, run.stderr).toBe(0);
      const [, id, resume] = /^\[1\/1\] migrated \S+: (\S+) -> \S+; resume: (.*)$/m.exec(run.stdout)!;
      expect(resume).toBe(`cd ${workspace} && REASONIX_HOME=${home} reasonix --resume ${id}`);
      const resumed = await runPrinted(resume!, home);
      expect(resumed.stderr.split('\n').filter((line) => line.startsWith('error: '))).toEqual([]);
      expect(resumed.code).toBe(0);
    });
  },
);
