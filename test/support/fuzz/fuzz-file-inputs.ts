import { posix } from 'node:path';
import { sessionPathOf, STORE, type BaseSession, type Entries, type Entry } from './fuzz-bases.js';
import { fileEntry, linkedOut, refsOf, replaced, withLog, type Draft, type Random } from './fuzz-drafts.js';
import { CONTENT_REFUSED, type FuzzOptions } from './fuzz-inputs.js';

/** The file system around the log: symlinked sessions and content, special files where store files belong. */

/** Symlinked session directories and content (docs/format.md §2: the directory must not be one; §6.3: objects are regular files). */
export function* symlinks(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  const withRefs = bases.filter((base) => refsOf(base).length > 0);
  for (;;) {
    const variant = rand.pick([
      'session dir',
      'session dir loop',
      'session dir dangling',
      'content object',
      'content index',
      'object to another object',
      'object shard dir',
      'content root',
    ] as const);
    const base = variant.startsWith('session') ? rand.pick(bases) : rand.pick(withRefs);
    const session = sessionPathOf(base.id);
    const draft = withLog(base, `symlinked ${variant}`, base.log);
    if (variant.startsWith('session')) {
      const entries: Entries = new Map();
      for (const [path, entry] of draft.entries)
        entries.set(path.startsWith(`${session}/`) ? path.replace(STORE, 'elsewhere') : path, entry);
      const target =
        variant === 'session dir'
          ? `../elsewhere/${base.id}`
          : variant === 'session dir loop'
            ? base.id
            : `../nowhere/${base.id}`;
      entries.set(session, { kind: 'symlink', target });
      yield { ...draft, entries };
      continue;
    }
    const ref = rand.pick(refsOf(base));
    const object = `${STORE}/.content-v1/objects/${ref.digest.slice(0, 2)}/${ref.digest.slice(2, 4)}/${ref.digest}`;
    const index = `${STORE}/.content-v1/indexes/${ref.digest.slice(0, 2)}/${ref.digest.slice(2, 4)}/${ref.digest}.json`;
    const refused = { sessionOpens: false, sessionProblem: CONTENT_REFUSED };
    switch (variant) {
      case 'content object':
      case 'content index': {
        const path = variant === 'content object' ? object : index;
        yield {
          ...draft,
          entries: linkedOut(draft.entries, path, `elsewhere/${posix.basename(path)}`),
          expect: refused,
        };
        break;
      }
      case 'object to another object': {
        const other = [...draft.entries.keys()].find((path) => path.includes('/objects/') && path !== object)!;
        yield {
          ...draft,
          entries: replaced(draft.entries, object, {
            kind: 'symlink',
            target: posix.relative(posix.dirname(object), other),
          }),
          expect: refused,
        };
        break;
      }
      case 'object shard dir':
      case 'content root': {
        // Only the last path element is checked for being a link; what Reasonix does here is not known.
        const dir = variant === 'content root' ? `${STORE}/.content-v1` : posix.dirname(object);
        const entries: Entries = new Map();
        for (const [path, entry] of draft.entries)
          entries.set(path.startsWith(`${dir}/`) ? path.replace(dir, `elsewhere/${posix.basename(dir)}`) : path, entry);
        entries.set(dir, {
          kind: 'symlink',
          target: posix.relative(posix.dirname(dir), `elsewhere/${posix.basename(dir)}`),
        });
        yield { ...draft, entries };
        break;
      }
    }
  }
}

const SPECIAL_KINDS = ['fifo', '/dev/zero', 'sparse', 'dir', 'dangling', 'link out'] as const;

/**
 * FIFOs, devices, huge sparse files, directories and links where a store file belongs. Enumerated
 * along diagonals, so the first six inputs already meet each kind once, on six different files.
 */
export function* specialFiles(_rand: Random, bases: readonly BaseSession[], options: FuzzOptions): Iterable<Draft> {
  const base = bases.find((candidate) => candidate.name === 'payload-ref')!;
  const session = sessionPathOf(base.id);
  const ref = refsOf(base)[0]!;
  const shard = `${ref.digest.slice(0, 2)}/${ref.digest.slice(2, 4)}/${ref.digest}`;
  const header = Buffer.from(
    JSON.stringify({ schemaVersion: 1, sessionId: base.id, createdAt: '2026-01-02T03:04:05Z', origin: 'new' }),
  );
  const targets = [
    'manifest.json',
    'header.json',
    'storage.identity.json',
    'events.offset-index.json',
    'writer.lock',
    `../.${base.id}.ownership.lock`,
    'events.frames',
    `../.content-v1/objects/${shard}`,
    `../.content-v1/indexes/${shard}.json`,
  ].map((name) => posix.normalize(`${session}/${name}`));
  for (let diagonal = 0; diagonal < targets.length; diagonal += 1) {
    for (const [k, kind] of SPECIAL_KINDS.entries()) {
      const path = targets[(k + diagonal) % targets.length]!;
      const original = base.entries.get(path);
      const entry: Entry = {
        fifo: { kind: 'fifo' } as const,
        '/dev/zero': { kind: 'symlink', target: '/dev/zero' } as const,
        sparse: { kind: 'sparse', bytes: options.sparseBytes } as const,
        dir: { kind: 'dir' } as const,
        dangling: { kind: 'symlink', target: 'nowhere' } as const,
        'link out': {
          kind: 'symlink',
          target: posix.relative(posix.dirname(path), `elsewhere/${posix.basename(path)}`),
        } as const,
      }[kind];
      let entries = replaced(base.entries, path, entry);
      if (kind === 'link out')
        entries = replaced(
          entries,
          `elsewhere/${posix.basename(path)}`,
          original ?? fileEntry(path.endsWith('header.json') ? header : Buffer.alloc(0)),
        );
      const isLog = path.endsWith('/events.frames');
      const isContent = path.includes('/.content-v1/');
      yield {
        recipe: `${base.name}: ${kind} as ${posix.relative(session, path)}`,
        entries,
        sessionPath: session,
        log: isLog ? undefined : base.log,
        ...(isContent ? { expect: { sessionOpens: false, sessionProblem: CONTENT_REFUSED } } : {}),
        // A link to a log elsewhere is followed, as Reasonix follows it.
        ...(isLog && kind !== 'sparse' && kind !== 'link out'
          ? { expect: { sessionOpens: false, sessionProblem: 'RX_LOG_MISSING' } }
          : {}),
      };
    }
  }
}
