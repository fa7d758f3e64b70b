import { lstat, readdir, stat, statfs } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  AmbiguousSessionError,
  InvalidInputError,
  PathKindError,
  RelocationRefusedError,
  SessionNotFoundError,
  WriterOwnedError,
  undefinedIfMissing,
  type SessionCandidate,
} from '../errors/index.js';
import { CONTENT_DIR } from '../codec/content-store.js';
import { isOsLockHeld } from '../fs/os-lock.js';
import { readSession } from '../session/verdict/read-session.js';
import { writerLockHolder } from '../session/reading/writer-locks.js';
import { isTranscriptName } from '../store/jsonl/jsonl-names.js';
import { freezeLegacySource } from '../store/jsonl/legacy-source.js';
import { mapInOrder } from '../store/listing/map-in-order.js';
import { DesktopRegistrySchema, desktopRegistryPath } from '../store/roots/desktop-registry.js';
import { machineRoots, type MachineRootOptions } from '../store/roots/machine-roots.js';
import { currentPlatform } from '../store/roots/platform.js';
import { sameSlug, workspaceSlug } from '../store/roots/workspace-slug.js';
import { goWorkingDirectory } from '../store/roots/working-directory.js';
import { readJsonFile } from '../session/reading/read-json-file.js';
import { HeaderSchema } from '../session/reading/header.js';
import { SESSION_FILES } from '../session/reading/session-files.js';
import { MIGRATION_MAP, MigrationMapSchema } from '../migrate/migration-map.js';
import { readJournal } from './relocation-journal.js';
import { finishedBefore } from './relocation-record.js';
import { DESKTOP_SESSIONS, type PlannedSession, type RelocationPlan, type StorePlan } from './relocation-plan.js';
import { transcriptFiles } from './transcript-files.js';
import { foldersSharingSlug, sameFolder, workspaceFolder } from './workspace-folder.js';
import { withStateRootsHeld } from './state-roots-held.js';
import { linkedFolderOnTheWay } from '../fs/linked-folder.js';

/** How `planRelocation` is asked: the two folders, and the roots and machine as `machineRoots` takes them. */
export interface RelocationOptions extends Omit<MachineRootOptions, 'cwd'> {
  /** The folder the project was in (it usually no longer exists). */
  from: string;
  /** The folder the project is in now: it must exist. */
  to: string;
  /** What relative `from` and `to` are resolved against; default the working directory as the shell gives it. */
  cwd?: string;
  /** Move this session only. */
  session?: string;
  /** Move although the old folder still exists, or another existing folder shares its slug. */
  force?: boolean;
  /** Leave the old copies where they are. */
  keep?: boolean;
  /** Whether a folder exists; default the file system. A tool planning for another machine's paths (another platform's) passes its own. */
  folderExists?: (path: string) => Promise<boolean>;
}

const READ_AHEAD = 4;

/**
 * Decides what `relocate` would move, changing nothing: every session under the old workspace's
 * slug (or the one `session` names) in each state root, into the new workspace's slug, with the
 * content objects it names, its JSONL sidecars, the workspace's other files and the desktop
 * registry's entries. Refuses, before anything moves, what would lose or mix up a session: the old
 * folder still there or another existing folder sharing its slug (unless `force`), a session id in
 * both workspaces, a session a running Reasonix holds, too little free space. Where an earlier
 * relocation of the same folders stopped part way, the plan finishes it.
 */
export async function planRelocation(options: RelocationOptions): Promise<RelocationPlan> {
  // The roots are this machine's files; the slug and path rules are `platform`'s (another platform's rules can so be checked here).
  const { inputs, roots } = await machineRoots({
    ...options,
    platform: currentPlatform(),
    cwd: options.cwd ?? goWorkingDirectory(),
  });
  const platform = options.platform ?? inputs.platform;
  const given = { from: options.from.trim(), to: options.to.trim() };
  if (!given.from || !given.to) throw new InvalidInputError('name the old workspace folder and the new one');
  const from = workspaceFolder(given.from, inputs.cwd, platform);
  const to = workspaceFolder(given.to, inputs.cwd, platform);
  if (sameFolder(from, to, platform))
    throw new InvalidInputError(
      `${from} is both the old and the new workspace: name the folder the project was in, then the one it is in now`,
    );
  const [fromSlug, toSlug] = [workspaceSlug(from, platform), workspaceSlug(to, platform)];
  if (sameSlug(fromSlug, toSlug, platform))
    throw new InvalidInputError(
      `${from} and ${to} have the same slug (${fromSlug}): Reasonix already finds the sessions from either`,
    );
  const exists = options.folderExists ?? folderExists;
  if (!(await exists(to)))
    throw new PathKindError(`${to}: no such folder; the new workspace must exist (it is where the project is now)`, {
      file: to,
    });

  const notes: string[] = [];
  if (await exists(from)) {
    if (!options.force)
      throw new RelocationRefusedError(
        `${from} still exists: Reasonix run there still finds its sessions; move them anyway with --force`,
        { reason: 'old-exists', file: from },
      );
    notes.push(`${from} still exists; its sessions move all the same (--force)`);
  }
  const sharing = await foldersSharingSlug(from, platform);
  if (sharing.length > 0) {
    const names = sharing.slice(0, 3).join(', ');
    if (!options.force)
      throw new RelocationRefusedError(
        `${names} ${sharing.length === 1 ? 'has' : 'have'} the same slug as ${from} (${fromSlug}): its sessions may be ${sharing.length === 1 ? 'that folder’s' : 'theirs'}; move them anyway with --force`,
        { reason: 'shared-slug', file: sharing[0]! },
      );
    notes.push(`${names} share the old slug; the sessions move all the same (--force)`);
  }

  const plan: RelocationPlan = {
    version: 1,
    platform,
    from,
    to,
    fromSlug,
    toSlug,
    session:
      options.session === undefined
        ? null
        : await wholeSessionId(
            options.session,
            roots.roots.filter((root) => root.kind === 'state').map((root) => root.path),
            { platform, fromSlug, toSlug },
          ),
    keep: options.keep ?? false,
    stores: [],
    copyBytes: 0,
    notes,
    pinned: roots.pinned,
  };
  // Planned while no relocation moves (one holds its roots from its plan to its last move): a session another
  // moves holds its writer lock, which would say a running Reasonix has it open.
  const stateRoots = roots.roots.filter((root) => root.kind === 'state').map((root) => root.path);
  await withStateRootsHeld(stateRoots, async () => {
    for (const root of stateRoots) {
      const store = await planStore(root, plan);
      if (store) plan.stores.push(store);
    }
  });
  if (
    plan.stores.every(
      (store) =>
        store.sessions.length === 0 &&
        store.others.length === 0 &&
        store.desktopWorkspaces.length === 0 &&
        store.desktopSessions.length === 0,
    )
  ) {
    const stateRoots = roots.roots.filter((root) => root.kind === 'state').map((root) => root.path);
    // Run again once it finished, a move finds its sessions under the new slug: said as done, not as a lookup that failed.
    const there = await sessionsUnderSlug(stateRoots, plan);
    // Only a move recorded (or one a journal holds) tells a finished move from a mistyped old folder; a recorded
    // one stands even when its sessions have moved on since (relocated again, or removed).
    const { finishedAt: recorded, unreadable } = await finishedBefore(stateRoots, plan, platform);
    if (recorded !== undefined || (there.length > 0 && (await unfinishedJournalOf(stateRoots, plan)))) {
      plan.stores = [];
      const counted = `${there.length} ${there.length === 1 ? 'session is' : 'sessions are'} under the slug of ${to} (${toSlug})`;
      plan.notes.push(
        plan.session && there[0]
          ? `session ${plan.session} is already under the slug of ${to} (${there[0]}): nothing left to relocate`
          : `nothing is left under the slug of ${from} (${fromSlug}); ${recorded ? `its move to ${to} finished ${recorded}; ` : ''}${counted}: nothing left to relocate`,
      );
      return plan;
    }
    const what = plan.session ? `no session ${plan.session}` : 'nothing';
    const unrecorded =
      there.length === 0
        ? ''
        : unreadable.length > 0
          ? ` (and ${unreadable.join(', ')} is not a record of relocations rxstore can read: check the old folder’s path)`
          : ' (and no relocation of it is recorded here: check the old folder’s path)';
    throw new SessionNotFoundError(
      `${what} under the slug of ${from} (${fromSlug}) in ${stateRoots.join(', ') || 'no state root'}: nothing to relocate${unrecorded}`,
    );
  }
  await checkFreeSpace(plan);
  return plan;
}

/**
 * The whole id of the session `given` names, as every command takes one: its id or the start of it, among the
 * sessions under the old slug and those already under the new one (a relocation run again). Given as it is when
 * no session's id starts with it (said later as nothing to move); refused when several do.
 */
async function wholeSessionId(
  given: string,
  stateRoots: readonly string[],
  slugs: Pick<RelocationPlan, 'platform' | 'fromSlug' | 'toSlug'>,
): Promise<string> {
  const found: SessionCandidate[] = [];
  for (const stateRoot of stateRoots)
    for (const slug of [slugs.fromSlug, slugs.toSlug])
      found.push(...(await sessionsIn(await slugDir(join(stateRoot, 'projects'), slug, slugs))));
  if (found.some((session) => session.id === given)) return given;
  const named = found.filter((session) => session.id.startsWith(given));
  const ids = new Set(named.map((session) => session.id));
  if (ids.size > 1)
    throw new AmbiguousSessionError(
      `${JSON.stringify(given)} is the start of ${ids.size} sessions' ids; give more of the id`,
      named,
    );
  return named[0]?.id ?? given;
}

/** Whether a state root holds the journal of this relocation, stopped after its last session moved. */
async function unfinishedJournalOf(stateRoots: readonly string[], plan: RelocationPlan): Promise<boolean> {
  for (const stateRoot of stateRoots) {
    const journal = await readJournal(stateRoot);
    if (journal && journal.from === plan.from && journal.to === plan.to) return true;
  }
  return false;
}

/** Sessions under the new slug in these state roots (only the one `plan.session` names, when it names one), as paths. */
async function sessionsUnderSlug(stateRoots: string[], plan: RelocationPlan): Promise<string[]> {
  const found: string[] = [];
  for (const stateRoot of stateRoots) {
    const toDir = await slugDir(join(stateRoot, 'projects'), plan.toSlug, plan);
    for (const session of await sessionsIn(toDir))
      if (plan.session === null || plan.session === session.id) found.push(session.path);
  }
  return found;
}

/** The sessions under a slug's folder: its sessions-v4 directories, then its JSONL transcripts. */
async function sessionsIn(slugFolder: string): Promise<SessionCandidate[]> {
  const v4 = join(slugFolder, 'sessions-v4');
  const jsonl = join(slugFolder, 'sessions');
  return [
    ...(await visibleDirs(v4)).map((id) => ({ id, store: 'sessions-v4', path: join(v4, id) })),
    ...(await entries(jsonl))
      .filter(isTranscriptName)
      .map((name) => ({ id: name.slice(0, -'.jsonl'.length), store: 'jsonl', path: join(jsonl, name) })),
  ];
}

async function folderExists(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    (error: unknown) => undefinedIfMissing(error, path) ?? false,
  );
}

/**
 * The folders a relocation moves sessions, caches and content out of and into, none of them a link: moved
 * through one, files outside the state root would be taken into it, or removed, or written there.
 */
function refuseLinkedFolders(projects: string, ...slugFolders: string[]): void {
  for (const slugFolder of slugFolders) {
    const below = (...parts: string[]) => [relative(projects, slugFolder), ...parts, 'entry'];
    for (const parts of [
      below('sessions'),
      ...[CONTENT_DIR, '.recovery-cache', '.query-cache'].map((folder) => below('sessions-v4', folder)),
    ]) {
      const linked = linkedFolderOnTheWay(projects, ...parts);
      if (linked)
        throw new RelocationRefusedError(
          `${linked} is a symbolic link: relocate moves sessions only between the state root's own folders, never through a link; nothing was moved`,
          { reason: 'linked-folder', file: linked },
        );
    }
  }
}

/** The entries of a folder, none when it does not exist. */
async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: unknown) => undefinedIfMissing(error, dir) ?? []);
}

/** The folder under `projects/` a slug names: on Windows NTFS matches names without regard to case. */
async function slugDir(projects: string, slug: string, plan: Pick<RelocationPlan, 'platform'>): Promise<string> {
  const found = (await entries(projects)).find((name) => sameSlug(name, slug, plan.platform));
  return join(projects, found ?? slug);
}

async function planStore(stateRoot: string, plan: RelocationPlan): Promise<StorePlan | undefined> {
  const journal = await readJournal(stateRoot);
  if (journal && (journal.from !== plan.from || journal.to !== plan.to || journal.session !== plan.session)) {
    throw new RelocationRefusedError(
      `${stateRoot} holds an unfinished relocation of ${journal.from} to ${journal.to}${journal.session ? ` (session ${journal.session})` : ''}: run it again to finish it first`,
      { reason: 'unfinished', file: stateRoot },
    );
  }
  if (journal) plan.notes.push(`finishing the relocation that stopped part way in ${stateRoot}`);
  const ours = new Set(
    journal?.stores
      .find((store) => store.stateRoot === stateRoot)
      ?.sessions.map((session) => `${session.store}:${session.id}`) ?? [],
  );
  const projects = join(stateRoot, 'projects');
  const fromDir = await slugDir(projects, plan.fromSlug, plan);
  const toDir = await slugDir(projects, plan.toSlug, plan);
  const [oldV4, newV4, oldJsonl, newJsonl] = [
    join(fromDir, 'sessions-v4'),
    join(toDir, 'sessions-v4'),
    join(fromDir, 'sessions'),
    join(toDir, 'sessions'),
  ];

  refuseLinkedFolders(projects, fromDir, toDir);

  const wanted = (id: string) => plan.session === null || plan.session === id;
  const v4Ids = new Set(
    [
      ...(await visibleDirs(oldV4)),
      ...[...ours].filter((key) => key.startsWith('sessions-v4:')).map((key) => key.slice('sessions-v4:'.length)),
    ].filter(wanted),
  );
  const transcripts = (await entries(oldJsonl)).filter(isTranscriptName);
  const jsonlIds = new Set(
    [
      ...transcripts.map((name) => name.slice(0, -'.jsonl'.length)),
      ...[...ours].filter((key) => key.startsWith('jsonl:')).map((key) => key.slice('jsonl:'.length)),
    ].filter(wanted),
  );

  // A clash of ids is refused before anything moves: the new workspace's own sessions are never written over.
  const newIds = new Set([
    ...(await visibleDirs(newV4)),
    ...(await entries(newJsonl)).filter(isTranscriptName).map((name) => name.slice(0, -'.jsonl'.length)),
  ]);
  for (const [store, ids] of [
    ['sessions-v4', v4Ids],
    ['jsonl', jsonlIds],
  ] as const) {
    for (const id of ids) {
      if (newIds.has(id) && !ours.has(`${store}:${id}`)) {
        throw new RelocationRefusedError(
          `session ${id} is in both workspaces (${join(store === 'jsonl' ? newJsonl : newV4, store === 'jsonl' ? `${id}.jsonl` : id)}): nothing was moved`,
          { reason: 'id-clash', file: join(store === 'jsonl' ? oldJsonl : oldV4, id) },
        );
      }
    }
  }

  const sessions: PlannedSession[] = [];
  for await (const session of mapInOrder([...v4Ids].sort(), READ_AHEAD, (id) =>
    planV4Session(oldV4, newV4, id, plan.session !== null),
  ))
    sessions.push(session);
  for (const id of [...jsonlIds].sort()) sessions.push(await planTranscript(oldJsonl, newJsonl, id));

  await noteImportedTranscripts(oldV4, oldJsonl, sessions, plan);
  for (const name of await linkedEntries(oldV4))
    if (wanted(name))
      plan.notes.push(`${join(oldV4, name)} is a symlink, not a session Reasonix opens: left where it is`);
  const others =
    plan.session === null
      ? (await entries(fromDir)).filter((name) => name !== 'sessions-v4' && name !== 'sessions').sort()
      : [];
  const desktopWorkspaces = plan.session === null ? await registeredWorkspaces(stateRoot, plan) : [];
  const desktopSessions = plan.session === null ? await desktopSessionsIn(stateRoot, plan) : [];
  const sameDevice = await onOneDevice(fromDir, toDir);
  if (!sameDevice || plan.keep)
    plan.copyBytes += await bytesToCopy(oldV4, newV4, sessions, {
      sameDevice,
      keep: plan.keep,
      oldJsonl,
      wholeStore: plan.session === null,
    });
  if (
    sessions.length === 0 &&
    others.length === 0 &&
    desktopWorkspaces.length === 0 &&
    desktopSessions.length === 0 &&
    !journal
  )
    return undefined;
  return { stateRoot, fromDir, toDir, sessions, others, desktopWorkspaces, desktopSessions, sameDevice };
}

/**
 * A JSONL transcript Reasonix already imported (an entry of the old store's migration map) is
 * resumed from the new folder by the session it became: Reasonix derives an imported session's id
 * from the transcript's path, so `--resume <transcript id>` after the move imports it again as a
 * new session without the turns taken since. Said in the plan, with the id to resume. A transcript
 * written to since it was imported holds messages that session lacks: that is said instead.
 */
async function noteImportedTranscripts(
  oldV4: string,
  oldJsonl: string,
  sessions: PlannedSession[],
  plan: RelocationPlan,
): Promise<void> {
  const transcripts = sessions.filter((session) => session.store === 'jsonl');
  if (transcripts.length === 0) return;
  const map = await readJsonFile(join(oldV4, MIGRATION_MAP), MigrationMapSchema);
  if (map.state !== 'ok') return;
  for (const transcript of transcripts) {
    const source = join(oldJsonl, `${transcript.id}.jsonl`);
    const entries = (map.value.entries ?? []).filter((entry) => entry.sourcePath === source);
    if (entries.length === 0) continue;
    const digest = await freezeLegacySource(source).then(
      (frozen) => frozen.sha256,
      () => undefined,
    );
    const targets = [
      ...new Set(
        entries.filter((entry) => digest === undefined || entry.sourceSha256 === digest).map((entry) => entry.targetId),
      ),
    ];
    const imported = [...new Set(entries.map((entry) => entry.targetId))];
    plan.notes.push(
      targets.length === 0
        ? `transcript ${transcript.id} changed since it was imported as session ${imported.join(', ')}: what was written to it since is in the transcript alone; from ${plan.to} \`--resume ${transcript.id}\` imports it as it is now, as a new session`
        : `transcript ${transcript.id} was imported as session ${targets.join(', ')}: from ${plan.to} resume ${targets.length === 1 ? 'that id' : 'one of those ids'}; \`--resume ${transcript.id}\` there would import the transcript again as a new session`,
    );
  }
}

/** Entries of a store that are symlinks with names a session could have: Reasonix refuses to open a session through one (docs/format.md §13.1). */
async function linkedEntries(store: string): Promise<string[]> {
  const found = await readdir(store, { withFileTypes: true }).catch(
    (error: unknown) => undefinedIfMissing(error, store) ?? [],
  );
  return found
    .filter((entry) => entry.isSymbolicLink() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}

/** Session directories of a store as Reasonix lists them: directories whose names do not start with `.` (docs/format.md §2). */
async function visibleDirs(store: string): Promise<string[]> {
  const found = await readdir(store, { withFileTypes: true }).catch(
    (error: unknown) => undefinedIfMissing(error, store) ?? [],
  );
  return found.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name);
}

/**
 * One sessions-v4 session: refused if a running Reasonix holds it. Moved alone, it is read (never
 * changed) for the content objects its log names; a session rxstore cannot read whole moves too,
 * with every object of the store: its bytes are moved as they are, and what was damaged stays so,
 * no worse. Moved with its whole workspace it is not read at all: the whole content store is brought
 * over before any session moves (`relocate`).
 */
async function planV4Session(oldStore: string, newStore: string, id: string, alone: boolean): Promise<PlannedSession> {
  const dir = (await lstat(join(oldStore, id)).catch(() => undefined)) ? join(oldStore, id) : join(newStore, id);
  const holder = await writerLockHolder(dir);
  if (holder)
    throw new WriterOwnedError(
      `session ${id} is open in a running Reasonix (${holder} is locked): nothing was moved; quit it, then relocate again`,
      { file: holder },
    );
  if (!alone) return { id, store: 'sessions-v4', content: [], files: [], extent: null };
  const content = join(oldStore, CONTENT_DIR);
  const read = await readSession(dir, { caches: false, keep: 'summary' }).catch(() => undefined);
  const readable =
    read !== undefined && (read.status === 'ok' || read.status === 'torn-tail' || read.status === 'turn-refused');
  const files = readable ? read.contentFiles : await allFiles(content);
  return {
    id,
    store: 'sessions-v4',
    content: files
      .filter((file) => file.startsWith(`${content}/`))
      .map((file) => relative(content, file))
      .sort(),
    files: [],
    extent: readable ? read.lastSequence : null,
  };
}

async function planTranscript(oldDir: string, newDir: string, id: string): Promise<PlannedSession> {
  const here = (await lstat(join(oldDir, `${id}.jsonl`)).catch(() => undefined)) ? oldDir : newDir;
  for (const lock of [`${id}.jsonl.lease.lock`, `${id}.jsonl.lock`]) {
    if (await isOsLockHeld(join(here, lock)))
      throw new WriterOwnedError(
        `transcript ${id} is open in a running Reasonix (${join(here, lock)} is locked): nothing was moved; quit it, then relocate again`,
        { file: join(here, lock) },
      );
  }
  const files = transcriptFiles(id, await entries(oldDir));
  const size = await stat(join(here, `${id}.jsonl`)).then(
    (stats) => stats.size,
    () => null,
  );
  return { id, store: 'jsonl', content: [], files, extent: size };
}

/** Every file under a folder, as paths. */
export async function allFiles(dir: string): Promise<string[]> {
  const found = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return found.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Workspaces of the desktop registry whose root is the old folder (whole paths: `/p/app` is never `/p/app-docker`). */
async function registeredWorkspaces(stateRoot: string, plan: RelocationPlan): Promise<string[]> {
  const read = await readJsonFile(desktopRegistryPath(stateRoot), DesktopRegistrySchema);
  if (read.state !== 'ok') return [];
  return Object.entries(read.value.workspaces)
    .filter(([, workspace]) => workspace.root !== undefined && sameFolder(workspace.root, plan.from, plan.platform))
    .map(([id]) => id)
    .sort();
}

/**
 * Desktop sessions whose `header.json` `cwd` is the old folder: the desktop app keeps them by id,
 * not by slug, and checks a session's `cwd` against its workspace's root, so the `cwd` is pointed
 * at the new folder with the registry's roots. Refused, before anything moves, when one is open.
 */
async function desktopSessionsIn(stateRoot: string, plan: RelocationPlan): Promise<string[]> {
  const store = join(stateRoot, ...DESKTOP_SESSIONS.split('/'));
  const found: string[] = [];
  for (const id of (await visibleDirs(store)).sort()) {
    const header = await readJsonFile(join(store, id, SESSION_FILES.header), HeaderSchema);
    if (header.state !== 'ok' || !header.value.cwd || !sameFolder(header.value.cwd, plan.from, plan.platform)) continue;
    const holder = await writerLockHolder(join(store, id));
    if (holder)
      throw new WriterOwnedError(
        `desktop session ${id} is open in a running Reasonix (${holder} is locked): nothing was moved; quit it, then relocate again`,
        { file: holder },
      );
    found.push(id);
  }
  return found;
}

/** Whether two folders (the new one perhaps not made yet: its nearest existing parent) are on one file system. */
async function onOneDevice(a: string, b: string): Promise<boolean> {
  const device = async (path: string): Promise<bigint | undefined> => {
    for (let at = path; ; at = dirname(at)) {
      const found = await stat(at, { bigint: true }).catch(() => undefined);
      if (found) return found.dev;
      if (dirname(at) === at) return undefined;
    }
  };
  const [x, y] = await Promise.all([device(a), device(b)]);
  return x !== undefined && x === y;
}

/** What must be copied rather than renamed or linked: content objects across file systems, and every copy `keep` leaves. */
async function bytesToCopy(
  oldV4: string,
  newV4: string,
  sessions: PlannedSession[],
  how: { sameDevice: boolean; keep: boolean; oldJsonl: string; wholeStore: boolean },
): Promise<number> {
  const sizeOf = (path: string) =>
    lstat(path).then(
      (stats) => (stats.isFile() ? stats.size : 0),
      () => 0,
    );
  let total = 0;
  if (!how.sameDevice) {
    const content = join(oldV4, CONTENT_DIR);
    const objects = new Set(
      how.wholeStore
        ? (await allFiles(content)).map((file) => relative(content, file))
        : sessions.flatMap((session) => session.content),
    );
    for (const object of objects)
      if (!(await lstat(join(newV4, CONTENT_DIR, object)).catch(() => undefined)))
        total += await sizeOf(join(oldV4, CONTENT_DIR, object));
  }
  if (how.keep || !how.sameDevice) {
    for (const session of sessions) {
      if (session.store === 'sessions-v4')
        for (const file of await allFiles(join(oldV4, session.id))) total += await sizeOf(file);
      else for (const name of session.files) total += await sizeOf(join(how.oldJsonl, name));
    }
  }
  return total;
}

/** Refuses before anything moves when what must be copied does not fit where it goes. */
async function checkFreeSpace(plan: RelocationPlan): Promise<void> {
  if (plan.copyBytes === 0) return;
  for (const store of plan.stores) {
    let at = store.toDir;
    while (!(await stat(at).catch(() => undefined)) && dirname(at) !== at) at = dirname(at);
    const fs = await statfs(at).catch(() => undefined);
    if (!fs) continue;
    const free = fs.bavail * fs.bsize;
    if (free < plan.copyBytes) {
      throw new RelocationRefusedError(
        `${plan.copyBytes} bytes must be copied into ${store.toDir}, and only ${free} are free there: nothing was moved`,
        { reason: 'no-space', file: store.toDir },
      );
    }
  }
}
