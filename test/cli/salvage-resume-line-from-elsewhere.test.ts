// `salvage --cwd WS` run from another folder ends with the command that resumes the new session: from WS, as
// `where --cwd WS` gives it (`cd WS && …`). Without the `cd`, run as printed, Reasonix answered "no session
// matches": it looks in the store of the folder it is run from.
import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { layForResume } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const source = fixture('plain-chat');

describe('salvage run from another folder than the one it is asked about', () => {
  it('prints a resume command that goes to that folder first', async () => {
    const home = await tempDir('rxstore-salvage-elsewhere-');
    const dir = await layForResume(source.dir, home, source.workspace);
    const elsewhere = await tempDir('rxstore-salvage-run-from-');
    const run = await runCliChild(['salvage', dir, '--state-home', home, '--cwd', source.workspace], {
      cwd: elsewhere,
    });
    expect(run.code, run.stderr).toBe(0);
    const line = run.stdout.split('\n').find((each) => each.trimStart().startsWith('resume it with: '));
    expect(line, run.stdout).toMatch(
      new RegExp(`resume it with: cd ${source.workspace} && .*reasonix --resume [0-9a-f]{32}$`),
    );
  });
});
