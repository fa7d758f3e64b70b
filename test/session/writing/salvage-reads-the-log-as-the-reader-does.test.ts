// Salvage opens the log as the reader does — a regular file only, read a chunk at a time — and a
// frame crafted to inflate costs it no more than it costs the reader, which stops at the first.
import { execFileSync } from 'node:child_process';
import { appendFile, rm, symlink } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeFrame, FRAME_BUDGET_BYTES } from '../../../src/codec/frame.js';
import { zstd } from '../../../src/codec/zstd/zstd.js';
import { salvageSession } from '../../../src/index.js';
import { copySession, logOf } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('salvage reads only a regular file where the log belongs', () => {
  it('a FIFO is refused, naming it, and never waited on', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await rm(logOf(dir));
    execFileSync('mkfifo', [logOf(dir)]);
    const result = await runCli(['salvage', '--dry-run', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `rxstore: RX_NOT_REGULAR_FILE: ${logOf(dir)}: events.frames is not a regular file: salvage reads no FIFO, device or socket\n`,
    );
  });

  it('a symlink to /dev/zero is refused, not read without end', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await rm(logOf(dir));
    await symlink('/dev/zero', logOf(dir));
    const result = await runCli(['salvage', '--dry-run', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^rxstore: RX_NOT_REGULAR_FILE: .*events\.frames: events\.frames is not a regular file/,
    );
  });
});

describe('frames crafted to inflate', () => {
  it('2,000 frames of a few hundred bytes, each promising 8 MiB, are not each inflated', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    const crafted = encodeFrame(Buffer.alloc(FRAME_BUDGET_BYTES));
    await appendFile(logOf(dir), Buffer.concat(Array.from({ length: 2000 }, () => crafted)));
    const decompress = vi.spyOn(zstd, 'decompress');
    const report = await salvageSession(dir, { dryRun: true });
    // The reader stops at the first of them: damage, and nothing past it holds a message.
    expect(report.damage).not.toBeNull();
    expect(report.recoveredMessages).toBe(0);
    const inflated = decompress.mock.calls.filter(([, rawSize]) => rawSize === FRAME_BUDGET_BYTES).length;
    // One frame budget, plus 64 times the bytes scanned (about 0.6 MB here): a handful of frames, not 2,000.
    expect(inflated).toBeGreaterThan(0);
    expect(inflated).toBeLessThan(2 + Math.ceil((64 * crafted.length * 2000) / FRAME_BUDGET_BYTES) + 1);
  });
});
