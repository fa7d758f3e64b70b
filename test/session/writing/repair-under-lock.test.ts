// A log that looks torn to a cold reader may be a batch another process is still writing. While
// another process holds a writer lock (taken here by the independent flock(1) utility), repair must
// refuse and change nothing; when that writer then finishes the batch, nothing of it is lost.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { copySession, endFrames, logOf, replaceFrame } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { runCli } from '../../support/inspect-json-schema.js';
import { tempDir } from '../../support/temp-dir.js';

const hasFlockUtility = spawnSync('flock', ['--version']).status === 0;
const source = fixture('tool-calls');

const outerLock = (dir: string) => join(dirname(dir), `.${basename(dir)}.ownership.lock`);
const innerLock = (dir: string) => join(dir, 'writer.lock');

/**
 * Another writer: holds `flock -x` on the given files from its own process, and on `finish()`
 * appends `tail` to the log while still holding them, then lets go.
 */
async function otherWriter(locks: string[], log: string, tail: string) {
  const script = 'echo locked; read go; cat "$TAIL" >> "$LOG"; echo appended; read done';
  const argv = locks.flatMap((lock) => ['flock', '-x', lock]).concat(['sh', '-c', script]);
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, TAIL: tail, LOG: log },
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  expect((await lines.next()).value).toBe('locked');
  return {
    finish: async () => {
      child.stdin!.write('\n');
      expect((await lines.next()).value).toBe('appended');
      child.stdin!.end('\n');
      await once(child, 'close');
    },
  };
}

const evidence = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('events.torn-'));

describe.skipIf(!hasFlockUtility)('repair while another process holds the writer locks and the log grows', () => {
  it.each([
    { held: 'the ownership lock', locks: (dir: string) => [outerLock(dir)] },
    { held: 'writer.lock', locks: (dir: string) => [innerLock(dir)] },
    { held: 'both locks', locks: (dir: string) => [outerLock(dir), innerLock(dir)] },
  ])(
    'with $held held: repair refuses and changes nothing, and the batch the writer then finishes is whole',
    async ({ locks }) => {
      const dir = await copySession(source.dir);
      const whole = await readFile(logOf(dir));
      const end = (await endFrames(dir)).at(-1)!;
      const tail = join(await tempDir('rxstore-tail-'), 'end-frame');
      await writeFile(tail, whole.subarray(end.offset, end.offset + end.bytes));
      await replaceFrame(dir, end, Buffer.alloc(0));
      const torn = await readFile(logOf(dir));

      const writer = await otherWriter(locks(dir), logOf(dir), tail);
      const inspected = JSON.parse((await runCli(['inspect', dir, '--json'])).stdout) as {
        status: string;
        openInRunningReasonix: boolean;
        problems: { code: string; severity: string }[];
      };
      expect(inspected.status).toBe('torn-tail');
      expect(inspected.openInRunningReasonix).toBe(true);
      // Open in a writer is a warning with its own code; RX_WRITER_OWNED is the refusal below.
      expect(
        inspected.problems
          .filter((problem) => problem.severity === 'warning')
          .map((problem) => problem.code)
          .sort(),
      ).toEqual(['RX_OPEN_IN_REASONIX', 'RX_TORN_TAIL']);
      expect((await runCli(['inspect', dir, '--strict'])).code).toBe(1);
      const repaired = await runCli(['repair', dir]);
      expect(repaired.code).toBe(1);
      expect(repaired.stderr).toMatch(/^rxstore: RX_WRITER_OWNED: .*session writer is owned by another runtime/m);
      expect((await readFile(logOf(dir))).equals(torn)).toBe(true);
      expect(await evidence(dir)).toEqual([]);

      await writer.finish();
      expect((await readFile(logOf(dir))).equals(whole)).toBe(true);
      const after = await readSession(dir);
      expect(after.status).toBe('ok');
      expect(after.batches).toBe((await readSession(source.dir)).batches);
      expect((await runCli(['repair', dir])).stdout).toMatch(/nothing to repair/);
      expect(await evidence(dir)).toEqual([]);
    },
  );
});
