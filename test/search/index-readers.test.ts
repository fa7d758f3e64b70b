// Sessions read for the search index on a reader thread (IndexReaders): the index must hold exactly what
// an index read on one thread holds, a damaged, a torn and an unopenable session, a transcript, and logs
// that grew since included; a thread that dies half way leaves its sessions to the update's own thread,
// and what it wrote of the session it was on is dropped.
import { EventEmitter } from 'node:events';
import { copyFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Database } from 'node-sqlite3-wasm';
import { describe, expect, it } from 'vitest';
import { appendBatches, createSession } from '../../src/index.js';
import { IndexReaders, type ReaderThread } from '../../src/search/index-readers/index-readers.js';
import { STEPS_AHEAD, type FromIndexReader } from '../../src/search/index-readers/index-readers-protocol.js';
import { serveIndexSteps } from '../../src/search/index-readers/serve-index-steps.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { searchSources } from '../../src/search/search-sources.js';
import { cutLog, editLog } from '../support/faults/faults.js';
import { FIXTURE_NAMES, fixture } from '../support/fixtures.js';
import { complete, messageId } from '../support/sessions/sample-session.js';
import { tempDir } from '../support/temp-dir.js';

const turn = (at: number, n: number) => ({
  operationId: `rxstore-test:readers-${at}-${n}-${messageId()}`,
  events: [
    complete({ role: 'user', id: messageId(), origin: 'user', content: `session ${at} asks kestrel ${n}` }),
    complete({ role: 'assistant', id: messageId(), content: `answer ${at}.${n}: heron` }),
  ],
});

/** A state root of 14 generated sessions (the third with a flipped byte, the fifth torn, the seventh unopenable). */
async function machine(): Promise<{ roots: Parameters<typeof searchSources>[0]; dirs: string[] }> {
  const stateRoot = await tempDir('rxstore-readers-');
  const storeDir = join(stateRoot, 'projects', '-tmp-readers-ws', 'sessions-v4');
  const dirs: string[] = [];
  for (let at = 0; at < 14; at += 1)
    dirs.push((await createSession({ storeDir, batches: [0, 1, 2].map((n) => turn(at, n)) })).dir);
  await editLog(dirs[2]!, (log) => {
    const copy = Buffer.from(log);
    copy[copy.length - 20]! ^= 0xff;
    return copy;
  });
  await cutLog(dirs[4]!, 7);
  await writeFile(join(dirs[6]!, 'manifest.json'), '{ not json');
  const roots = [
    { kind: 'state' as const, path: stateRoot, lines: ['1.x' as const] },
    ...FIXTURE_NAMES.map((name) => ({ kind: 'state' as const, path: fixture(name).root, lines: ['1.x' as const] })),
  ];
  return { roots, dirs };
}

/** Builds or brings up to date the index in `cacheDir`, its sessions read as `readers` says. */
async function update(
  roots: Parameters<typeof searchSources>[0],
  cacheDir: string,
  readers: () => IndexReaders | undefined,
): Promise<void> {
  const { sources } = await searchSources(roots, 'linux');
  const index = await SearchIndex.open(cacheDir);
  try {
    await index.update(sources, undefined, undefined, readers);
  } finally {
    await index.close();
  }
}

/** What the index file holds, in an order that does not depend on the order sessions were written in. */
async function dump(
  cacheDir: string,
): Promise<{ sessions: unknown[]; docs: unknown[]; places: unknown[]; integrity: unknown[] }> {
  // Read from a copy: this process keeps its connection to the index, which holds the file locked.
  const copy = join(await tempDir('rxstore-readers-dump-'), 'index.sqlite');
  copyFileSync(join(cacheDir, 'search-index.sqlite'), copy);
  const db = new Database(copy, { readOnly: true });
  try {
    return {
      sessions: db.all('select * from sessions order by path'),
      docs: db.all(
        'select d.path, d.rkey, d.kind, d.role, d.tool, d.exit_code, d.message_id, d.time, t.text from docs d join docs_text t on t.rowid = d.id order by 1, 2, 3, 9',
      ),
      places: db.all('select * from places order by path, pos'),
      // The full-text index agrees with its rows.
      integrity: [db.get("select count(*) as n from docs_text where docs_text match 'kestrel'")],
    };
  } finally {
    db.close();
  }
}

/**
 * A reader "thread" on this thread: it serves the steps as a thread would, and dies (as a thread
 * whose heap ran out) once it has posted `posts` messages.
 */
function dyingReader(posts: number): IndexReaders {
  const channel = new MessageChannel();
  const thread = new EventEmitter() as EventEmitter & ReaderThread;
  let posted = 0;
  let dead = false;
  serveIndexSteps({
    on: (event, listener) => channel.port2.on(event, listener),
    postMessage: (message: unknown) => {
      if (dead) return;
      if ((posted += 1) > posts) {
        dead = true;
        thread.emit('exit', 1);
        return;
      }
      channel.port2.postMessage(message);
    },
  } as Parameters<typeof serveIndexSteps>[0]);
  channel.port1.on('message', (message) => thread.emit('message', message));
  Object.assign(thread, {
    postMessage: (message: unknown) => channel.port1.postMessage(message),
    ref: () => undefined,
    unref: () => undefined,
    terminate: async () => {
      channel.port1.close();
      channel.port2.close();
      return 0;
    },
  });
  return new IndexReaders(thread);
}

describe('a search index whose sessions are read on a reader thread', () => {
  it('holds what an index read on one thread holds, built and then brought up to date', async () => {
    const { roots, dirs } = await machine();
    const [here, threaded] = [await tempDir('rxstore-readers-here-'), await tempDir('rxstore-readers-thread-')];
    await update(roots, here, () => undefined);
    await update(roots, threaded, IndexReaders.start);
    const built = await dump(here);
    expect(await dump(threaded)).toEqual(built);
    expect(built.sessions.length).toBeGreaterThan(14);
    expect(built.integrity).toEqual([{ n: 37 }]);
    // Logs that grew are read on from their cursors, on the thread too.
    for (const at of [0, 1, 3, 5, 8, 9, 10, 11]) await appendBatches(dirs[at]!, [turn(99, 3)]);
    await update(roots, here, () => undefined);
    let started = 0;
    await update(roots, threaded, () => ((started += 1), IndexReaders.start()));
    expect(started).toBe(1);
    const grown = await dump(here);
    expect(await dump(threaded)).toEqual(grown);
    expect(grown.integrity).toEqual([{ n: 45 }]);
  });

  it('reads here what a thread that died did not finish, and drops what it wrote of the session it was on', async () => {
    const { roots } = await machine();
    const here = await tempDir('rxstore-readers-here-');
    await update(roots, here, () => undefined);
    const expected = await dump(here);
    // Dead at its first message, after a few sessions, in the middle of one.
    for (const posts of [0, 6, 9]) {
      const cacheDir = await tempDir('rxstore-readers-dying-');
      await mkdir(cacheDir, { recursive: true });
      await update(roots, cacheDir, () => dyingReader(posts));
      expect(await dump(cacheDir)).toEqual(expected);
    }
  });

  it('reads small sessions ahead as far as their records allow, not their restarts and ends', async () => {
    const stateRoot = await tempDir('rxstore-readers-ahead-');
    const storeDir = join(stateRoot, 'projects', '-tmp-readers-ahead', 'sessions-v4');
    const count = STEPS_AHEAD + 2;
    for (let at = 0; at < count; at += 1) await createSession({ storeDir, batches: [turn(at, 0)] });
    const { sources } = await searchSources([{ kind: 'state', path: stateRoot, lines: ['1.x'] }], 'linux');
    expect(sources).toHaveLength(count);
    const channel = new MessageChannel();
    serveIndexSteps(channel.port2);
    const seen: FromIndexReader[] = [];
    let arrived: (() => void) | undefined;
    channel.port1.on('message', (message: FromIndexReader) => {
      seen.push(message);
      arrived?.();
    });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise<void>((resolve) => (arrived = resolve));
    };
    const writes = () => seen.filter((message) => message.type === 'step' && message.step.type === 'write').length;
    const started = (id: number) => seen.some((message) => message.id === id);
    try {
      sources.forEach((source, at) =>
        channel.port1.postMessage({ type: 'read', id: at, job: { source, cursor: null } }),
      );
      // Nothing taken: a session's restart and end cost no credit, so the thread reads one session for each
      // step of records it may post, and begins the next, whose records wait.
      await until(() => started(STEPS_AHEAD));
      expect(writes()).toBe(STEPS_AHEAD);
      expect(seen.filter((message) => message.type === 'done')).toHaveLength(STEPS_AHEAD);
      expect(started(STEPS_AHEAD + 1)).toBe(false);
      // One taken: one more step of records.
      channel.port1.postMessage({ type: 'more' });
      await until(() => started(STEPS_AHEAD + 1));
      expect(writes()).toBe(STEPS_AHEAD + 1);
    } finally {
      channel.port1.close();
    }
  });
});
