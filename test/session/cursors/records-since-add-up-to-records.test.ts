import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IndexRecord, RecordsCursor } from '../../../src/index.js';
import { FIXTURE_NAMES, fixture } from '../../support/fixtures.js';
import {
  frameBoundaries,
  growingCopy,
  readInto,
  RecordIndex,
  wholeRecords,
} from '../../support/sessions/record-index.js';
import { writeSession } from '../../../bench/support/write-session.js';
import { repoRoot } from '../../support/paths.js';
import { tempDir } from '../../support/temp-dir.js';
import { seededRandom } from '../../support/seeded-random.js';
import { CPU_CLOCK_ONLY, withinCpuTime } from '../../support/cpu-budget.js';

/**
 * The rule an incremental indexer lives by: however a session's log is cut into appended pieces
 * (at any frame boundary: a batch half written is a torn tail, invisible until it is whole),
 * applying the records read since the last cursor after each piece, in order and by key, gives
 * exactly `records()` of the session as it then stands — the title and workspace as the stream
 * last gave them — and the status the stream last gave is the one `read()` gives; and applying
 * their transcript writes gives its transcript's messages, in order, so its person view's ids.
 */
async function expectAddsUp(
  sessionDir: string,
  cuts: number[],
  options: { wholeAtEnd?: Awaited<ReturnType<typeof wholeRecords>> } = {},
): Promise<void> {
  const copy = await growingCopy(sessionDir);
  const index = new RecordIndex();
  let cursor: RecordsCursor | undefined;
  for (const [at, cut] of cuts.entries()) {
    await copy.growTo(cut);
    cursor = await readInto(copy.dir, index, cursor);
    // Checked after every piece, or (given the whole's records) after the last only.
    if (options.wholeAtEnd && at < cuts.length - 1) continue;
    const whole = options.wholeAtEnd ?? (await wholeRecords(copy.dir));
    expect(whole.byKey.size, `records() gives each key once (log cut at ${cut})`).toBe(whole.count);
    expect(index.session.status, `the session's status at ${cut}, as read() says it`).toBe(whole.status);
    const first = [...whole.byKey.values()][0];
    if (first)
      expect(index.session, `the session's fields at ${cut}`).toMatchObject({
        title: first.title,
        workspace: first.workspace,
      });
    expect(index.transcript, `the transcript's messages at ${cut}, as the pieces wrote them`).toEqual(whole.transcript);
    expect(
      index.transcript.filter((entry) => entry.seen).map((entry) => entry.id),
      `the person view's ids at ${cut}, as cat numbers them`,
    ).toEqual(whole.personIds);
    expect(
      sorted(index.current()),
      `the records of the log's first ${cut} bytes, read in pieces cut at ${cuts.join(', ')}`,
    ).toEqual(sorted(whole.byKey));
  }
}

const sorted = (records: Map<string, IndexRecord>) =>
  [...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Every session log the fixtures hold: each fixture's session and the others Reasonix wrote beside it (a fork's parent). */
function fixtureSessions(): { name: string; dir: string }[] {
  const fixtures = join(repoRoot, 'fixtures');
  return readdirSync(fixtures, { recursive: true, encoding: 'utf8' })
    .filter((path) => basename(path) === 'events.frames')
    .map((path) => ({ name: relative(fixtures, join(fixtures, dirname(path))), dir: join(fixtures, dirname(path)) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

describe('records read since cursors add up to records() of the whole, however the log is cut', () => {
  const sessions = fixtureSessions();
  it("covers every session log in the fixtures: each fixture's own and the others beside it", () => {
    for (const name of FIXTURE_NAMES) expect(sessions.map((session) => session.dir)).toContain(fixture(name).dir);
    expect(sessions.length).toBeGreaterThan(FIXTURE_NAMES.length);
  });
  for (const { name, dir } of sessions) {
    it(
      `${name}: cut once at every frame boundary, at every boundary in turn, and at random boundaries`,
      () =>
        withinCpuTime(async () => {
          const boundaries = await frameBoundaries(dir);
          const end = boundaries.at(-1)!;
          const whole = await wholeRecords(dir);
          for (const cut of boundaries) await expectAddsUp(dir, [cut, end], { wholeAtEnd: whole });
          await expectAddsUp(dir, boundaries);
          const random = seededRandom(name.length);
          for (let trial = 0; trial < 3; trial += 1) {
            const cuts = boundaries.filter(() => random.next() < 0.2);
            await expectAddsUp(dir, [...cuts, end]);
          }
        }),
      CPU_CLOCK_ONLY,
    );
  }

  // Generated sessions (turns of messages, shell calls and results, edits, payloads in the content store), as the bench writes them.
  for (const seed of [7, 20261130]) {
    it(
      `a generated session (seed ${seed}): cut once at every frame boundary, and at every boundary in turn`,
      () =>
        withinCpuTime(async () => {
          const store = join(await tempDir('rxstore-generated-'), 'sessions-v4');
          const { dir } = await writeSession(store, `generated${seed}`.padEnd(32, '0'), {
            rawBytes: 128 * 1024,
            seed,
            workspace: '/tmp/rxstore-generated-ws',
          });
          const boundaries = await frameBoundaries(dir);
          const whole = await wholeRecords(dir);
          expect(whole.count).toBeGreaterThan(10);
          for (const cut of boundaries) await expectAddsUp(dir, [cut, boundaries.at(-1)!], { wholeAtEnd: whole });
          await expectAddsUp(dir, boundaries);
        }),
      CPU_CLOCK_ONLY,
    );
  }
});
