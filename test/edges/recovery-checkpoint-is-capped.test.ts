// A recovery checkpoint larger than any Reasonix writes is not read into memory: the session is still read, and
// the checkpoint is said to be too large to check (RX_TOO_LARGE), with its path.
import { cp, mkdir, open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_CHECKPOINT_BYTES } from '../../src/session/reading/recovery-cache.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';
import { tempDir } from '../support/temp-dir.js';

describe('a recovery checkpoint past the bound', () => {
  it('inspect reads the session and says the checkpoint is too large to check, naming it', async () => {
    const root = await tempDir('rxstore-checkpoint-');
    const plain = fixture('plain-chat');
    await cp(plain.root, root, { recursive: true });
    const dir = join(root, plain.sessionDir);
    const cache = join(dirname(dir), '.recovery-cache', basename(dir));
    await mkdir(cache, { recursive: true });
    const checkpoint = join(cache, 'recovery-v1.bolt');
    // Sparse: the size is what counts, not the disk it takes.
    const handle = await open(checkpoint, 'w');
    await handle.truncate(MAX_CHECKPOINT_BYTES + 1);
    await handle.close();
    const run = await runCli(['inspect', dir, '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as {
      status: string;
      problems: { code: string; severity: string; message: string; data: { file: string } }[];
    };
    expect(report.status).toBe('ok');
    // A copied session's offset index is a stale cache (a note): only warnings and errors are asked about.
    expect(report.problems.filter((problem) => problem.severity !== 'note')).toEqual([
      expect.objectContaining({
        code: 'RX_TOO_LARGE',
        severity: 'warning',
        message: `Reasonix's recovery checkpoint of the session is ${MAX_CHECKPOINT_BYTES + 1} bytes, more than rxstore reads into memory (${MAX_CHECKPOINT_BYTES}): whether Reasonix can open it was not checked`,
        data: expect.objectContaining({ file: checkpoint }),
      }),
    ]);
  });
});
