import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WriterOwnedError } from '../../../src/errors/index.js';
import { appendBatches } from '../../../src/session/writing/append-batches.js';
import { createSession } from '../../../src/session/writing/create-session.js';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { acquireWriterLocks, writerLockHolder } from '../../../src/session/reading/writer-locks.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { sampleBatches } from '../../support/sessions/sample-session.js';
import { tempDir } from '../../support/temp-dir.js';

const hasFlockUtility = spawnSync('flock', ['--version']).status === 0;

describe('a lock file that is not a file', () => {
  it('is held by no one; the session is refused as Reasonix refuses it, and a write with a coded file-system error naming it, not a raw EISDIR', async () => {
    const { dir } = await createSession({ storeDir: await tempDir(), batches: sampleBatches() });
    const lockFile = join(dir, 'writer.lock');
    await rm(lockFile, { force: true });
    await mkdir(lockFile);
    expect(await writerLockHolder(dir)).toBeUndefined();
    // Reasonix cannot take the lock and refuses to open the session (test/reasonix/reads/blocked-files-match-reasonix).
    expect((await readSession(dir)).refusal).toMatchObject({ code: 'RX_BLOCKED_FILE', data: { file: lockFile } });
    const refused = await appendBatches(dir, [
      { operationId: 'x', events: [{ kind: 'session/title', payload: { title: 'x' } }] },
    ]).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'RX_FILE_SYSTEM',
      message: `${lockFile}: is a directory`,
      data: { file: lockFile, errno: 'EISDIR' },
    });
  });
});

/** Holds `flock -x` (or `-s`) on a file from another process until the returned function is called. */
async function holdWithFlockUtility(path: string, mode: '-x' | '-s' = '-x'): Promise<() => Promise<void>> {
  const child = spawn('flock', [mode, path, 'sh', '-c', 'echo locked; read line'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await once(child.stdout!, 'data');
  return async () => {
    child.stdin!.end('\n');
    await once(child, 'close');
  };
}

describe.skipIf(!hasFlockUtility)(
  `Reasonix's writer locks are real flock locks${hasFlockUtility ? '' : ' — skipped: no flock(1) utility here to hold a lock independently'}`,
  () => {
    it('sees a lock the flock utility holds, on either file, and refuses to write', async () => {
      const { dir } = await createSession({ storeDir: await tempDir(), batches: sampleBatches() });
      for (const lockFile of [join(dir, 'writer.lock'), join(dirname(dir), `.${basename(dir)}.ownership.lock`)]) {
        spawnSync('touch', [lockFile]);
        const release = await holdWithFlockUtility(lockFile);
        try {
          expect(await writerLockHolder(dir)).toBe(lockFile);
          await expect(acquireWriterLocks(dir)).rejects.toBeInstanceOf(WriterOwnedError);
          await expect(
            appendBatches(dir, [{ operationId: 'x', events: [{ kind: 'session/title', payload: { title: 'x' } }] }]),
          ).rejects.toThrow(/session writer is owned by another runtime/);
          const inspected = await runCli(['inspect', dir]);
          // The report's own line, not only the warning: `inspect --json` says the same.
          expect(inspected.stdout).toContain('open         in a running Reasonix (its writer lock is held)\n');
          expect(inspected.stdout).not.toContain('lock files');
          expect(JSON.parse((await runCli(['inspect', dir, '--json'])).stdout)).toMatchObject({
            openInRunningReasonix: true,
          });
          expect((await readSession(dir)).openBy).toBe(lockFile);
        } finally {
          await release();
        }
        expect(await writerLockHolder(dir)).toBeUndefined();
      }
    });

    it("looks without taking what a writer takes: another process's look is not a writer, and its own look leaves the lock free", async () => {
      const { dir } = await createSession({ storeDir: await tempDir(), batches: sampleBatches() });
      const lockFile = join(dir, 'writer.lock');
      spawnSync('touch', [lockFile]);
      // A shared lock is what a look holds for its instant: two rxstore processes looking at once.
      const release = await holdWithFlockUtility(lockFile, '-s');
      try {
        expect(await writerLockHolder(dir)).toBeUndefined();
        expect(JSON.parse((await runCli(['inspect', dir, '--json'])).stdout)).toMatchObject({ status: 'ok' });
      } finally {
        await release();
      }
    });

    it('holds a lock the flock utility then cannot take', async () => {
      const { dir } = await createSession({ storeDir: await tempDir(), batches: sampleBatches() });
      const locks = await acquireWriterLocks(dir);
      try {
        expect(spawnSync('flock', ['-n', join(dir, 'writer.lock'), 'true']).status).toBe(1);
      } finally {
        await locks.release();
      }
      expect(spawnSync('flock', ['-n', join(dir, 'writer.lock'), 'true']).status).toBe(0);
      // A lock file left behind is not a held lock.
      const inspected = await runCli(['inspect', dir]);
      expect(inspected.stdout).toMatch(/lock files +\d, not held/);
    });
  },
);
