import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { readBatches, readFrames } from '../../src/codec/index.js';
import { openSession, search, type FoundHit, type SearchOptions } from '../../src/index.js';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

/** A copy of a fixture the real Reasonix wrote, searched with an index of its own. */
async function fixtureCopy(name: 'payload-ref' | 'tool-calls') {
  const root = await tempDir(`rxstore-search-${name}-`);
  await cp(fixture(name).root, root, { recursive: true });
  const dir = fixture(name).dir.replace(fixture(name).root, root);
  const options: SearchOptions = {
    roots: [{ kind: 'state', path: root, lines: ['1.x'] }],
    platform: 'linux',
    cacheDir: join(root, 'cache'),
  };
  return { root, dir, options, cache: await tempDir('rxstore-search-cache-') };
}

/** The tool result's 71 KiB payload of the payload-ref fixture: its object in the store's `.content-v1`. */
const TOOL_OBJECT = 'objects/07/67/0767561600df29471bb01e21d03929582004fa27cac0a37671681040d67966c6';
const contentFile = (dir: string, file: string) => join(dir, '..', '.content-v1', file);

/** The hits, and how many sessions the index read to give them. */
async function searched(query: string, options: SearchOptions): Promise<{ hits: FoundHit[]; read: number }> {
  const hits: FoundHit[] = [];
  let read = 0;
  for await (const hit of search(query, { ...options, onProgress: () => (read += 1) })) hits.push(hit);
  return { hits, read };
}
const shown = (hits: readonly FoundHit[]) => hits.map((hit) => `${hit.key} ${hit.kind} ${hit.damage ?? 'whole'}`);

/** What the index gives is what a search straight from the stores gives, and it is said. */
async function expectAsFromTheStores(query: string, options: SearchOptions): Promise<FoundHit[]> {
  const { hits } = await searched(query, options);
  expect(shown(hits)).toEqual(shown((await searched(query, { ...options, index: false })).hits));
  return hits;
}

/**
 * A copy of a real Reasonix session whose log is cut some batches back and searched (the index keeps a cursor
 * there, its hits whole), and `growDamaged`: the log grown back to whole with a byte far behind that cursor changed,
 * which a read on from the cursor does not see.
 */
async function searchedThenGrownDamaged() {
  const { dir, options } = await fixtureCopy('tool-calls');
  const log = join(dir, 'events.frames');
  const whole = await readFile(log);
  const ends: number[] = [];
  for await (const item of readBatches(
    readFrames(
      (async function* () {
        yield whole;
      })(),
    ),
  ))
    if (item.type === 'batch') ends.push(item.batch.end);
  const cut = ends[Math.floor(ends.length / 2)]!;
  await writeFile(log, whole.subarray(0, cut));
  const before = await searched('notes', options);
  expect(before.hits.every((hit) => hit.damage === null)).toBe(true);
  const growDamaged = async () => {
    const grown = Buffer.from(whole);
    const at = Math.floor(cut / 2);
    grown[at] = grown[at]! ^ 0xff;
    await writeFile(log, grown);
  };
  return { options, growDamaged };
}

describe('a search never gives a stale hit after damage outside the log', () => {
  it('a payload object removed, damaged, put back: the index reads the session again each time (real Reasonix session)', async () => {
    const { dir, options } = await fixtureCopy('payload-ref');
    // 1,300 numbered lines in the tool's output, 1,200 in the prompt: line 01250 is only in the output.
    const whole = await searched('"line 01250"', options);
    expect(whole.hits.map((hit) => [hit.kind, hit.damage])).toEqual([['tool-output', null]]);
    expect(whole.read).toBe(1);
    // Unchanged: a stat of its files, no read.
    expect((await searched('"line 01250"', options)).read).toBe(0);

    const object = contentFile(dir, TOOL_OBJECT);
    const bytes = await readFile(object);
    await rm(object);
    expect((await searched('"line 01250"', options)).hits).toEqual([]);
    const missing = await expectAsFromTheStores('"line 00171"', options);
    expect(missing.map((hit) => [hit.kind, hit.damage?.slice(0, 19)])).toEqual([['user', 'RX_MISSING_CONTENT:']]);

    // Put back with a byte changed: the object the read stopped at is watched too.
    const damaged = Buffer.from(bytes);
    damaged[500] = damaged[500]! ^ 0x20;
    await writeFile(object, damaged);
    const corrupt = await expectAsFromTheStores('"line 00171"', options);
    expect(corrupt.map((hit) => hit.damage?.slice(0, 19))).toEqual(['RX_CORRUPT_CONTENT:']);

    await writeFile(object, bytes);
    const again = await expectAsFromTheStores('"line 00171"', options);
    expect(again.map((hit) => [hit.kind, hit.damage]).sort()).toEqual([
      ['tool-output', null],
      ['user', null],
    ]);
    expect((await searched('"line 00171"', options)).read).toBe(0);
  });

  it('an older copy of the index put back, in a process that searches again, has its content stamps checked (real Reasonix session)', async () => {
    const { dir, options } = await fixtureCopy('payload-ref');
    const index = join(options.cacheDir!, 'search-index.sqlite');
    const object = contentFile(dir, TOOL_OBJECT);
    const bytes = await readFile(object);
    await rm(object);
    // Files old enough for the listing to be kept, and searched enough times for the watch to vouch for it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 600_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    for (let run = 0; run < 3; run += 1) await searched('"line 00171"', options);
    await cp(index, `${index}.missing`);
    await writeFile(object, bytes);
    for (let run = 0; run < 3; run += 1) await expectAsFromTheStores('"line 00171"', options);
    // Put back by another hand: its stamps say the object is missing, and only a stat of it says otherwise.
    await rename(`${index}.missing`, index);
    const hits = await expectAsFromTheStores('"line 00171"', options);
    expect(hits.map((hit) => hit.damage)).toEqual([null, null]);
  });

  it('a log rewritten in place, its size unchanged, is read again from the start (real Reasonix session)', async () => {
    const { dir, options } = await fixtureCopy('tool-calls');
    const before = await searched('notes', options);
    expect(before.hits.length).toBeGreaterThan(1);
    expect(before.hits.every((hit) => hit.damage === null)).toBe(true);
    const log = join(dir, 'events.frames');
    const bytes = await readFile(log);
    // Far from the log's first bytes and from the last stretch a cursor checks.
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(log, bytes);
    const notWhole: string[] = [];
    const after = await expectAsFromTheStores('notes', {
      ...options,
      around: 1,
      onNotWhole: (part) => notWhole.push(JSON.stringify(part)),
    });
    expect(after.length).toBeLessThan(before.hits.length);
    expect(after.every((hit) => hit.damage?.startsWith('RX_DAMAGED_STORE: '))).toBe(true);
    // Said by the search through the index and by the one straight from the stores, alike.
    expect(notWhole).toHaveLength(2);
    expect(notWhole[0]).toContain('RX_DAMAGED_STORE');
    expect(notWhole[1]).toBe(notWhole[0]);
  });

  it('a writer lock or identity Reasonix cannot use, then put right: the index sees each, as --no-index (real Reasonix session)', async () => {
    const { dir, options } = await fixtureCopy('tool-calls');
    // A clock some minutes ahead makes every file old enough for this process to keep its listing between
    // searches: each search then checks the kept listing by its stats alone, as a long-lived process does.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 600_000 });
    onTestFinished(() => void vi.useRealTimers());
    const whole = await searched('notes', options);
    expect(whole.hits.length).toBeGreaterThan(1);
    expect((await searched('notes', options)).read).toBe(0);
    /** The hits and what was said of the session, through the index; the same as straight from the stores. */
    const asFromTheStores = async () => {
      const said = (index: boolean) => {
        const notWhole: string[] = [];
        return searched('notes', { ...options, index, onNotWhole: (part) => notWhole.push(JSON.stringify(part)) }).then(
          ({ hits }) => ({ hits: shown(hits), notWhole }),
        );
      };
      const indexed = await said(true);
      expect(indexed).toEqual(await said(false));
      return indexed;
    };
    const lock = join(dir, 'writer.lock');
    const identity = join(dir, 'storage.identity.json');
    const identityBytes = await readFile(identity);
    // Only the lock changes: the log, manifest and header are as the index last read them.
    await rm(lock, { force: true });
    await symlink('writer.lock', lock);
    const looped = await asFromTheStores();
    expect(looped.hits).toEqual([]);
    expect(looped.notWhole.join('\n')).toContain('RX_BLOCKED_FILE');
    await rm(lock);
    expect((await asFromTheStores()).hits).toEqual(shown(whole.hits));
    await rm(identity);
    await mkdir(identity);
    const blocked = await asFromTheStores();
    expect(blocked.hits).toEqual([]);
    expect(blocked.notWhole.join('\n')).toContain('storage.identity.json is a directory');
    await rm(identity, { recursive: true });
    await writeFile(identity, identityBytes);
    expect(await asFromTheStores()).toEqual({ hits: shown(whole.hits), notWhole: [] });
  });

  // The index trusts the bytes its cursor verified, as `ls`'s summary cache does (and Reasonix its recovery
  // checkpoint): a search reads on from the cursor. A search with `around` reads each session hit whole.
  it('a log that grew with bytes damaged behind its cursor: hits with the messages around them say the damage, as --no-index (real Reasonix session)', async () => {
    const { options, growDamaged } = await searchedThenGrownDamaged();
    await growDamaged();
    const notWhole: string[] = [];
    const after = await expectAsFromTheStores('notes', {
      ...options,
      around: 1,
      onNotWhole: (part) => notWhole.push(JSON.stringify(part)),
    });
    expect(after.every((hit) => hit.damage?.startsWith('RX_DAMAGED_STORE: '))).toBe(true);
    expect(notWhole).toHaveLength(2);
    expect(notWhole[0]).toContain('RX_DAMAGED_STORE');
    expect(notWhole[1]).toBe(notWhole[0]);
  });

  it('the same, when a search without --around read the grown log first: --around still gives every hit', async () => {
    const { options, growDamaged } = await searchedThenGrownDamaged();
    await growDamaged();
    // Read on from the cursor: the damage behind it unseen, the index up to date with the grown log.
    expect((await searched('notes', options)).hits.length).toBeGreaterThan(0);
    // The whole read of --around finds the damage; the session read again from the start is searched, not lost.
    const after = await expectAsFromTheStores('notes', { ...options, around: 1 });
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((hit) => hit.damage?.startsWith('RX_DAMAGED_STORE: '))).toBe(true);
  });

  it('--around shows the messages a person reads, numbered as cat prints them, never the host session-context', async () => {
    const { dir, options } = await fixtureCopy('tool-calls');
    const read: { id?: string; content: string }[] = [];
    for await (const message of (await openSession(dir)).personView()) read.push(message);
    for (const index of [true, false]) {
      const { hits } = await searched('"cannot access"', { ...options, index, around: 2 });
      expect(hits.length).toBeGreaterThan(0);
      for (const hit of hits) {
        expect(read[hit.index!]!.id).toBe(hit.messageId);
        for (const message of hit.around!) {
          expect(message.text).not.toContain('<session-context');
          expect(read[message.index]!.id ?? null).toBe(message.messageId);
        }
      }
      // Without --around, the same place.
      const placed = await searched('"cannot access"', { ...options, index });
      expect(placed.hits.map((hit) => hit.index)).toEqual(hits.map((hit) => hit.index));
    }
  });
});

describe('rxstore search after damage outside the log, as a person runs it', () => {
  const run = (args: string[], cache: string) => runCliChild(args, { env: { ...process.env, XDG_CACHE_HOME: cache } });
  const jsonHits = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; damage: string | null });

  it('a removed payload object: the search says RX_MISSING_CONTENT, as --no-index and ls do', async () => {
    const { root, dir, cache } = await fixtureCopy('payload-ref');
    const query = ['search', '--state-home', root, '--json', '"line 00171"'];
    expect(jsonHits((await run(query, cache)).stdout).map((hit) => hit.damage)).toEqual([null, null]);
    const object = contentFile(dir, TOOL_OBJECT);
    const bytes = await readFile(object);
    await rm(object);
    const indexed = await run(query, cache);
    const direct = await run([...query, '--no-index'], cache);
    expect(indexed.stdout).toBe(direct.stdout);
    expect(indexed.stderr).toBe(direct.stderr);
    expect(jsonHits(indexed.stdout).map((hit) => hit.damage?.slice(0, 19))).toEqual(['RX_MISSING_CONTENT:']);
    expect(indexed.stderr).toContain(`${dir}: searched up to damage: RX_MISSING_CONTENT: `);
    const problems = async () =>
      (JSON.parse((await run(['ls', '--state-home', root, '--json'], cache)).stdout) as { problemCode: string }[]).map(
        (row) => row.problemCode,
      );
    expect(await problems()).toEqual(['RX_MISSING_CONTENT']);
    // Put back: both read the session again (ls kept its summary, the index its records, up to the missing object).
    await writeFile(object, bytes);
    expect(await problems()).toEqual([null]);
    const whole = await run(query, cache);
    expect(whole).toMatchObject({ code: 0, stderr: '' });
    expect(jsonHits(whole.stdout).map((hit) => hit.damage)).toEqual([null, null]);
  });

  it('a log rewritten in place: the search says RX_DAMAGED_STORE, as --no-index and ls do', async () => {
    const { root, dir, cache } = await fixtureCopy('tool-calls');
    const query = ['search', '--state-home', root, '--json', 'notes'];
    const before = await run(query, cache);
    expect(before.code).toBe(0);
    expect(before.stderr).toBe('');
    const log = join(dir, 'events.frames');
    const bytes = await readFile(log);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0xff;
    await writeFile(log, bytes);
    const indexed = await run(query, cache);
    const direct = await run([...query, '--no-index'], cache);
    expect(indexed.stdout).toBe(direct.stdout);
    expect(indexed.stderr).toBe(direct.stderr);
    expect(indexed.stderr).toContain(`${dir}: searched up to damage: RX_DAMAGED_STORE: `);
    const listed = await run(['ls', '--state-home', root, '--json'], cache);
    expect((JSON.parse(listed.stdout) as { problemCode: string }[]).map((row) => row.problemCode)).toEqual([
      'RX_DAMAGED_STORE',
    ]);
  });
});
