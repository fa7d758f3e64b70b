import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ListedSession } from '../src/store/listing/describe-conversation.js';
import { appendBatch } from './support/faults.js';
import { runCli } from './support/inspect-json-schema.js';
import { buildStateRoot, type BuiltMachine } from './support/state-root.js';
import { tempDir } from './support/temp-dir.js';

/** `rxstore ls --json` of the machine, with the summary cache in `XDG_CACHE_HOME`. */
async function ls(machine: BuiltMachine, ...extra: string[]): Promise<ListedSession[]> {
  const run = await runCli(['ls', '--state-home', machine.stateRoot, '--json', ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as ListedSession[];
}

const checked = (sessions: ListedSession[]) => sessions.flatMap((session) => session.copies.map((copy) => copy.checked));
/** A row as it reads, without how it was checked. */
const facts = (sessions: ListedSession[]) => sessions.map(({ checked: _, copies, ...row }) => ({ ...row, copies: copies.map(({ checked: __, ...copy }) => copy) }));

describe('ls keeps a summary cache, like git keeps its index', () => {
  let cacheDir: string;
  let before: string | undefined;
  beforeEach(async () => {
    before = process.env.XDG_CACHE_HOME;
    cacheDir = await tempDir('rxstore-cache-');
    process.env.XDG_CACHE_HOME = cacheDir;
  });
  afterEach(() => {
    process.env.XDG_CACHE_HOME = before;
  });
  const cacheFile = () => join(cacheDir, 'rxstore', 'summaries-v1.json');

  it('an unchanged session is not read again; a changed one is; the rows say which, and read the same', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    expect(new Set(checked(first))).toEqual(new Set(['now']));
    const second = await ls(machine);
    expect(facts(second)).toEqual(facts(first));
    // Every copy that told something came from the cache; the damaged one too: its verdict is kept.
    expect(checked(second).filter((how) => how === 'now')).toEqual([]);

    const toolCalls = first.find((session) => session.id === machine.ids.toolCalls)!;
    await appendBatch(toolCalls.path, [{ kind: 'message/complete', payload: { message: { role: 'user', id: 'rx-cache-new', content: 'one more', origin: 'user' } } }]);
    const third = await ls(machine);
    const changed = third.find((session) => session.id === machine.ids.toolCalls)!;
    expect(changed.checked).toBe('now');
    expect(changed.messages).toBe(toolCalls.messages + 1);
    expect(third.filter((session) => session.id !== machine.ids.toolCalls).every((session) => session.checked === 'cache')).toBe(true);
  });

  it('a corrupt cache file, or a bad entry in it, is never trusted: those sessions are read again', async () => {
    const machine = await buildStateRoot();
    const first = await ls(machine);
    const kept = JSON.parse(await readFile(cacheFile(), 'utf8')) as { entries: Record<string, { summary: { status: string } }> };
    const [path] = Object.keys(kept.entries);
    kept.entries[path!]!.summary.status = 'splendid';
    await writeFile(cacheFile(), JSON.stringify(kept));
    const second = await ls(machine);
    const copies = second.flatMap((session) => session.copies);
    expect(copies.find((copy) => copy.path === path)!.checked).toBe('now');
    expect(copies.filter((copy) => copy.path !== path).every((copy) => copy.checked === 'cache')).toBe(true);
    await writeFile(cacheFile(), 'not json at all');
    const third = await ls(machine);
    expect(new Set(checked(third))).toEqual(new Set(['now']));
    expect(facts(third)).toEqual(facts(first));
  });

  it('--no-cache reads every log and leaves the cache alone; --verify reads every log too', async () => {
    const machine = await buildStateRoot();
    await ls(machine);
    const { mtimeMs } = await stat(cacheFile());
    const bytes = await readFile(cacheFile());
    expect(new Set(checked(await ls(machine, '--no-cache')))).toEqual(new Set(['now']));
    expect(await readFile(cacheFile())).toEqual(bytes);
    expect((await stat(cacheFile())).mtimeMs).toBe(mtimeMs);
    const verified = await runCli(['ls', '--state-home', machine.stateRoot, '--json', '--verify']);
    expect(verified.code).toBe(1); // the machine holds a damaged session
    expect(new Set(checked(JSON.parse(verified.stdout) as ListedSession[]))).toEqual(new Set(['now']));
  });
});
