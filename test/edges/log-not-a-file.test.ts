import { mkdir, rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { copySession, logOf } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';
import { runCli } from '../support/inspect-json-schema.js';

// A log that is a directory fails its read with a system error that names no file: every command
// must still say which file, in one line, with the environment's exit status.
describe('a session whose events.frames is a directory', () => {
  it('salvage names the log and says what is wrong with it', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await rm(logOf(dir));
    await mkdir(logOf(dir));
    const result = await runCli(['salvage', '--dry-run', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`rxstore: RX_FILE_SYSTEM: ${logOf(dir)}: is a directory\n`);
  });

  it('inspect and cat say it is not a regular file, not that it is missing', async () => {
    const dir = await copySession(fixture('plain-chat').dir);
    await rm(logOf(dir));
    await mkdir(logOf(dir));
    const cat = await runCli(['cat', dir]);
    expect(cat.code).toBe(1);
    expect(cat.stderr).toBe(`rxstore: RX_LOG_MISSING: ${logOf(dir)}: events.frames is not a regular file\n`);
    const inspect = await runCli(['inspect', dir, '--json']);
    expect(inspect.code).toBe(1);
    expect(JSON.parse(inspect.stdout).problems).toContainEqual(
      expect.objectContaining({ code: 'RX_LOG_MISSING', message: 'events.frames is not a regular file' }),
    );
  });
});
