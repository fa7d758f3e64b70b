import { execFile } from 'node:child_process';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { rxstoreBin } from '../../support/cli-child.js';
import { fixture } from '../../support/fixtures.js';
import { startMockModel } from '../../support/reasonix/mock-model.js';
import {
  commandAsUser,
  layForResume,
  reasonixBinary,
  reasonixEnv,
  reasonixTitle,
  runReasonix,
} from '../../support/reasonix/reasonix.js';

/**
 * Reasonix opens a session for writing, whoever runs it: its writer lock, the store's ownership lock and the
 * session directory must be writable by that user, and the caches it rebuilds need not be readable. Each case
 * is judged by the real Reasonix 1.38.11 run as the same user as rxstore (as `nobody` when the tests run as
 * root, through `setpriv`). What the user may not write is a warning (`RX_NOT_WRITABLE`, an error under
 * `--strict`): the session is sound, and its owner opens it; what no user can open is refused.
 */
const run = promisify(execFile);
const source = fixture('plain-chat');
/** A session whose large payloads Reasonix kept in the store's content store (`.content-v1`). */
const withContent = fixture('payload-ref');
const asRoot = process.getuid?.() === 0;
/** Who runs both tools: `nobody` when the tests run as root (root may write anything), else this user. */
const user = asRoot ? 65534 : process.getuid?.();

/** `command` run as the test's user, with its exit code and what it said; killed after `timeoutMs`. */
function runAs(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<{ code: number | null; said: string }> {
  const [bin, argv] = commandAsUser(command, args, user);
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv, { cwd: tmpdir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, said });
    });
  });
}

/** A state root holding the session, Reasonix's caches made by one resume, all owned by the test's user. */
async function stateRoot(from: typeof source = source) {
  const home = await mkdtemp(join(tmpdir(), 'rxstore-permissions-'));
  const dir = await layForResume(from.dir, home, from.workspace);
  if (asRoot) await run('chown', ['-R', `${user}:${user}`, home]);
  const first = await resume(home, basename(dir), undefined, from.workspace);
  expect(first.code, first.said).toBe(0);
  return { home, dir, id: basename(dir), store: dirname(dir), workspace: from.workspace };
}

async function resume(home: string, id: string, timeoutMs?: number, workspace = source.workspace) {
  // A FIFO it opens is one this test planted and never writes: seen waiting on it, Reasonix would wait for ever.
  const mock = await startMockModel([{ text: 'Resumed.' }]);
  try {
    const result = await runReasonix({
      home,
      cwd: workspace,
      args: ['run', '--resume', id, 'say ok'],
      mock,
      permissionMode: 'danger-full-access',
      asUser: user,
      timeoutMs,
      stopWhenWaitingOnFifo: true,
      stopWhenReadingWithoutEnd: true,
      env: { XDG_CACHE_HOME: join(home, '.cache') },
    });
    return {
      code: result.code,
      said: `${result.stdout}\n${result.stderr}`,
      waitedOnFifo: result.waitedOnFifo,
      readWithoutEnd: result.readWithoutEnd,
    };
  } finally {
    await mock.close();
  }
}

/** `rxstore inspect` of the session, as the test's user. */
const inspect = (home: string, dir: string, options: string[] = []) =>
  runAs(process.execPath, [rxstoreBin, 'inspect', dir, ...options], {
    ...reasonixEnv(home),
    XDG_CACHE_HOME: join(home, '.cache'),
  });

type Root = Awaited<ReturnType<typeof stateRoot>>;
/**
 * rxstore's answer: `ok` (exit 0, nothing said), `warns` (exit 0 with the code, exit 1 under --strict), `refuses`
 * (exit 1 with the code: the session's refusal, which its report says Reasonix goes on past where it does).
 */
type Answer = 'ok' | 'warns' | 'refuses';
const cases: {
  name: string;
  /** The session the case changes: the plain chat unless it says. */
  from?: typeof source;
  change: (root: Root) => Promise<void>;
  opens: boolean;
  /** Reasonix is seen waiting in the open of a FIFO the case planted (and stopped: it would wait for ever). */
  waits?: true;
  /** Reasonix is seen reading without end what the case planted (and stopped: it would read for ever). */
  readsForEver?: true;
  rxstore: Answer;
  code?: string;
  says?: string;
  onlyAsRoot?: boolean;
  repairs?: boolean;
}[] = [
  { name: 'as it was', change: async () => {}, opens: true, rxstore: 'ok' },
  {
    name: 'writer.lock read-only',
    change: ({ dir }) => chmod(join(dir, 'writer.lock'), 0o400),
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
  },
  // Nor may this user tell whether another user's Reasonix holds it: a warning, never a system error.
  {
    name: 'writer.lock unreadable',
    change: ({ dir }) => chmod(join(dir, 'writer.lock'), 0o000),
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
    says: 'writer.lock is not readable by this user',
  },
  {
    name: 'the session directory read-only',
    change: ({ dir }) => chmod(dir, 0o500),
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
  },
  // The ownership lock is there already: Reasonix opens it, and writes nothing else in the store's folder.
  { name: 'the store read-only', change: ({ store }) => chmod(store, 0o500), opens: true, rxstore: 'ok' },
  {
    name: 'the store read-only, without the ownership lock',
    change: async ({ store, id }) => {
      await rm(join(store, `.${id}.ownership.lock`));
      await chmod(store, 0o500);
    },
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
  },
  {
    name: 'a copy owned by another user (root), readable by all',
    change: async ({ dir }) => {
      await run('chown', ['-R', '0:0', dir]);
      await run('chmod', ['-R', 'u=rwX,go=rX', dir]);
    },
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
    onlyAsRoot: true,
  },
  {
    name: 'storage.identity.json unreadable',
    change: ({ dir }) => chmod(join(dir, 'storage.identity.json'), 0o000),
    opens: true,
    rxstore: 'ok',
  },
  // Reasonix refuses a recovery cache folder it may not use; the checkpoint in it, it replaces if it must.
  {
    name: 'the recovery cache unreadable',
    change: ({ store, id }) => chmod(join(store, '.recovery-cache', id), 0o000),
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
  },
  {
    name: 'the recovery cache read-only',
    change: ({ store, id }) => chmod(join(store, '.recovery-cache', id), 0o555),
    opens: true,
    rxstore: 'ok',
  },
  {
    name: 'events.frames read-only',
    change: ({ dir }) => chmod(join(dir, 'events.frames'), 0o444),
    opens: false,
    rxstore: 'warns',
    code: 'RX_NOT_WRITABLE',
  },
  {
    name: 'the recovery checkpoint a FIFO (Reasonix sets it aside and makes a new one)',
    change: async ({ store, id }) => {
      const checkpoint = join(store, '.recovery-cache', id, 'recovery-v1.bolt');
      await rm(checkpoint);
      await run('mkfifo', [checkpoint]);
      if (asRoot) await run('chown', [`${user}:${user}`, checkpoint]);
    },
    opens: true,
    rxstore: 'ok',
  },
  {
    name: 'the recovery checkpoint unreadable',
    change: ({ store, id }) => chmod(join(store, '.recovery-cache', id, 'recovery-v1.bolt'), 0o000),
    opens: true,
    rxstore: 'ok',
  },
  {
    name: 'the recovery checkpoint read-only',
    change: ({ store, id }) => chmod(join(store, '.recovery-cache', id, 'recovery-v1.bolt'), 0o400),
    opens: true,
    rxstore: 'ok',
  },
  {
    name: 'storage.identity.json a link to /dev/null (read as empty)',
    change: async ({ dir }) => {
      await rm(join(dir, 'storage.identity.json'));
      await run('ln', ['-s', '/dev/null', join(dir, 'storage.identity.json')]);
    },
    opens: true,
    rxstore: 'ok',
  },
  {
    name: 'storage.identity.json a link to /dev/zero (never ends)',
    change: async ({ dir }) => {
      await rm(join(dir, 'storage.identity.json'));
      await run('ln', ['-s', '/dev/zero', join(dir, 'storage.identity.json')]);
    },
    opens: false,
    readsForEver: true,
    rxstore: 'refuses',
    code: 'RX_BLOCKED_FILE',
  },
  {
    name: "the query cache's catalog a FIFO (repair clears it)",
    change: async ({ store, id }) => {
      const catalog = join(store, '.query-cache', id, 'catalog-metadata.json');
      await rm(catalog, { force: true });
      await run('mkfifo', [catalog]);
      if (asRoot) await run('chown', [`${user}:${user}`, catalog]);
    },
    opens: false,
    waits: true,
    rxstore: 'refuses',
    code: 'RX_QUERY_CACHE_BLOCKED',
    repairs: true,
  },
  {
    name: 'storage.identity.json a FIFO',
    change: async ({ dir }) => {
      await rm(join(dir, 'storage.identity.json'));
      await run('mkfifo', [join(dir, 'storage.identity.json')]);
      if (asRoot) await run('chown', [`${user}:${user}`, join(dir, 'storage.identity.json')]);
    },
    opens: false,
    waits: true,
    rxstore: 'refuses',
    code: 'RX_BLOCKED_FILE',
  },
  // A payload its user may not read is the session's refusal, as Reasonix's: it opens the session from its
  // recovery checkpoint, which covers the whole log here, and reads no payload; without it, it refuses.
  {
    name: 'a content object unreadable, the recovery checkpoint kept (Reasonix goes on with it)',
    from: withContent,
    change: ({ store }) => chmod(contentObject(store), 0o000),
    opens: true,
    rxstore: 'refuses',
    code: 'RX_CORRUPT_CONTENT',
    says: 'goes on with it: it opens it from its recovery checkpoint',
  },
  {
    name: 'a content object unreadable, without the recovery checkpoint',
    from: withContent,
    change: async ({ store, id }) => {
      await chmod(contentObject(store), 0o000);
      await rm(join(store, '.recovery-cache', id), { recursive: true });
    },
    opens: false,
    rxstore: 'refuses',
    code: 'RX_CORRUPT_CONTENT',
    says: 'content object cannot be read: permission denied',
  },
];

/** One of the objects of the store's content store. */
function contentObject(store: string): string {
  const objects = join(store, '.content-v1', 'objects');
  const [first] = readdirSync(objects);
  const [second] = readdirSync(join(objects, first!));
  const [name] = readdirSync(join(objects, first!, second!));
  return join(objects, first!, second!, name!);
}

const applicable = cases.filter((found) => !found.onlyAsRoot || asRoot);

describe.skipIf(!reasonixBinary() || process.platform !== 'linux')(
  reasonixTitle('what its user may read and write, judged by Reasonix 1.38.11 run as the same user'),
  () => {
    it.concurrent.each(applicable)(
      '$name',
      async ({ from, change, opens, waits, readsForEver, rxstore: answer, code, says, repairs }) => {
        const root = await stateRoot(from);
        try {
          await change(root);
          const rxstore = await inspect(root.home, root.dir);
          const strict = await inspect(root.home, root.dir, ['--strict']);
          // Reasonix waits for ever on a FIFO no one writes (seen waiting in its open), and reads /dev/zero for
          // ever (seen reading past a thousand times the state root): stopped there, it did not open the session.
          const reasonix = await resume(root.home, root.id, 20_000, root.workspace);
          expect(reasonix.code === 0, reasonix.said).toBe(opens);
          expect(reasonix.waitedOnFifo, 'Reasonix seen waiting in the open of a FIFO').toBe(waits === true);
          expect(reasonix.readWithoutEnd, 'Reasonix seen reading without end').toBe(readsForEver === true);
          expect(rxstore.code, rxstore.said).toBe(answer === 'refuses' ? 1 : 0);
          expect(strict.code, strict.said).toBe(answer === 'ok' ? 0 : 1);
          if (code) expect(rxstore.said).toContain(code);
          else expect(rxstore.said).not.toMatch(/RX_NOT_WRITABLE|RX_BLOCKED_FILE/);
          if (says) expect(rxstore.said).toContain(says);
          if (repairs) {
            const repaired = await runAs(process.execPath, [rxstoreBin, 'repair', root.dir], {
              ...reasonixEnv(root.home),
              XDG_CACHE_HOME: join(root.home, '.cache'),
            });
            expect(repaired.code, repaired.said).toBe(0);
            expect((await inspect(root.home, root.dir)).code).toBe(0);
            const after = await resume(root.home, root.id, 20_000, root.workspace);
            expect(after.code, after.said).toBe(0);
          }
        } finally {
          // Put the permissions back so that the folder can be removed.
          await run('chmod', ['-R', 'u+rwX', root.home]).catch(() => undefined);
          await rm(root.home, { recursive: true, force: true });
        }
      },
    );
  },
);
