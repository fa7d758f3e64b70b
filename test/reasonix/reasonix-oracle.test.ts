import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REASONIX_VERSION, reasonixAbsentMessage, reasonixBinary } from '../support/reasonix/reasonix.js';

const hasBinary = process.platform === 'linux' && process.arch === 'x64';

// The judge of every compatibility test. Where its platform has a binary, its absence or another
// version fails the run here (and the tests it judges fail, not skip); elsewhere they say why they skip.
describe.skipIf(!hasBinary)(`the real Reasonix${hasBinary ? '' : ` — skipped: ${reasonixAbsentMessage()}`}`, () => {
  it(`is installed on linux-x64 and reports version ${REASONIX_VERSION}`, () => {
    const bin = reasonixBinary();
    expect(bin).not.toBeNull();
    const version = execFileSync(bin!, ['--version'], { encoding: 'utf8', timeout: 30_000 }).trim();
    expect(version).toBe(`reasonix v${REASONIX_VERSION}`);
  });
});
