// A machine's Reasonix state assembled from the committed fixtures (fixtures/*/, written by the real
// Reasonix 1.38.11): sessions in several workspaces, the global store, desktop copies with a registry,
// a JSONL original beside its migrated twin, a damaged session, dot-directories, sidecars and a legacy root.
import { cp, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createSession } from '../../../src/session/writing/create-session.js';
import { fixture, type FIXTURE_NAMES } from '../fixtures.js';
import { complete, messageId } from './sample-session.js';
import { tempDir } from '../temp-dir.js';

type FixtureName = (typeof FIXTURE_NAMES)[number];

export interface BuiltMachine {
  /** The user's home directory: `.reasonix` (the state root) and `.config/reasonix` (a legacy root) are in it. */
  home: string;
  stateRoot: string;
  legacyRoot: string;
  /** Session ids (JSONL: file stems), by what they are. */
  ids: {
    plainChat: string;
    toolCalls: string;
    titledFork: string;
    titledParent: string;
    payloadRef: string;
    jsonlTwin: string;
    jsonlStem: 'legacy-demo';
    desktopImport: string;
    cjkGlobal: string;
    damaged: string;
    desktopOnly: string;
    looseJsonl: 'loose-notes';
    v0: 'v0-chat';
  };
  /** Workspace folders, by fixture name (as recorded in the sessions). */
  workspaces: Record<FixtureName, string>;
  /** Where some copies are. */
  paths: {
    jsonlTranscript: string;
    legacyTranscript: string;
    v0Transcript: string;
    damagedLog: string;
  };
}

export const V0_WORKSPACE = '/tmp/rxstore-v0-ws';

/** Copies a fixture's `projects/<slug>/…` tree (sessions-v4 with `.content-v1` and locks, JSONL files) into `stateRoot`. */
async function copyFixtureProjects(name: FixtureName, stateRoot: string): Promise<void> {
  await cp(join(fixture(name).root, 'projects'), join(stateRoot, 'projects'), { recursive: true });
}

/** Flips one byte inside the second frame's zstd payload: a CRC (checksum) failure, as in the fault matrix. */
async function flipByteInSecondFrame(logPath: string): Promise<void> {
  const bytes = await readFile(logPath);
  const second = 12 + bytes.readUInt32BE(4);
  const at = second + 12 + Math.floor(bytes.readUInt32BE(second + 4) / 2);
  bytes[at] = bytes[at]! ^ 0xff;
  await writeFile(logPath, bytes);
}

/** The first of the modification times every file of a built machine is given. */
export const STAMPED_FROM = Date.parse('2026-11-01T08:00:00Z');

/**
 * Gives every file under the roots its own modification time, one minute apart in path order,
 * so that "when it last changed" is decided by the machine's layout, never by when the copy ran.
 */
async function stampTimes(roots: string[]): Promise<void> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (entry.isFile()) files.push(join(dir, entry.name));
    }
  };
  for (const root of roots) await walk(root);
  files.sort();
  for (const [index, file] of files.entries()) {
    const time = new Date(STAMPED_FROM + index * 60_000);
    await utimes(file, time, time);
  }
}

export async function buildStateRoot(): Promise<BuiltMachine> {
  const home = await tempDir('rxstore-machine-');
  const stateRoot = join(home, '.reasonix');
  const legacyRoot = join(home, '.config', 'reasonix');
  const f = (name: FixtureName) => fixture(name);
  /** The slug folder a fixture's session sits under: `projects/<slug>/sessions-v4/<id>`. */
  const slugOf = (name: FixtureName) => f(name).sessionDir.split('/')[1]!;
  const workspaces = Object.fromEntries(
    (
      [
        'plain-chat',
        'tool-calls',
        'payload-ref',
        'cjk-emoji',
        'titled',
        'jsonl-migrated',
        'interrupted',
        'compacted',
      ] as const
    ).map((name) => [name, f(name).workspace]),
  ) as Record<FixtureName, string>;
  // The machine's workspace folders are there, as on a machine whose sessions were written in them: a listing
  // marks a workspace that is not `(gone)`, and `where` refuses one (another test may not have made them yet).
  for (const workspace of Object.values(workspaces)) await mkdir(workspace, { recursive: true });

  // Workspace stores, as Reasonix wrote them.
  for (const name of ['plain-chat', 'tool-calls', 'payload-ref', 'titled', 'jsonl-migrated', 'interrupted'] as const)
    await copyFixtureProjects(name, stateRoot);
  const damagedLog = join(stateRoot, f('interrupted').sessionDir, 'events.frames');
  await flipByteInSecondFrame(damagedLog);

  // The global store (docs/format.md §1.2): where `reasonix acp` puts sessions.
  await cp(f('cjk-emoji').dir, join(stateRoot, 'sessions-v4', f('cjk-emoji').id), { recursive: true });

  // Desktop: a copy of tool-calls (same id), compacted alone, and an import of the JSONL transcript under a new id.
  const byId = join(stateRoot, 'desktop-sessions-v5', 'by-id');
  await cp(f('tool-calls').dir, join(byId, f('tool-calls').id), { recursive: true });
  await cp(f('compacted').dir, join(byId, f('compacted').id), { recursive: true });
  const imported = await createSession({
    storeDir: byId,
    batches: [
      {
        operationId: 'session-create',
        events: [complete({ role: 'system', id: messageId(), content: 'You are a legacy assistant.' })],
      },
      {
        operationId: 'legacy-import',
        events: [complete({ role: 'user', id: messageId(), origin: 'user', content: 'What files are here?' })],
      },
    ],
  });
  await writeFile(
    join(imported.dir, 'header.json'),
    `${JSON.stringify({ schemaVersion: 1, sessionId: imported.id, createdAt: '2026-12-01T09:00:00Z', cwd: workspaces['jsonl-migrated'], origin: 'legacy-import' })}\n`,
  );
  const jsonlDir = join(stateRoot, 'projects', slugOf('jsonl-migrated'), 'sessions');
  const jsonlTranscript = join(jsonlDir, 'legacy-demo.jsonl');
  const toolCallsV4 = join(stateRoot, f('tool-calls').sessionDir);
  await mkdir(join(stateRoot, 'desktop'), { recursive: true });
  await writeFile(
    join(stateRoot, 'desktop', 'workspace-state-v1.json'),
    `${JSON.stringify({
      version: 3,
      generation: 4,
      initialized: true,
      workspaceIds: ['ws-tools', 'ws-legacy'],
      workspaces: {
        'ws-tools': {
          id: 'ws-tools',
          root: workspaces['tool-calls'],
          title: 'tool-calls',
          sessionIds: [f('tool-calls').id],
          visible: true,
          createdAt: '2026-12-01T09:00:00Z',
          updatedAt: '2026-12-01T09:00:00Z',
        },
        'ws-legacy': {
          id: 'ws-legacy',
          root: workspaces['jsonl-migrated'],
          title: 'legacy',
          sessionIds: [imported.id],
          visible: true,
          createdAt: '2026-12-01T09:00:00Z',
          updatedAt: '2026-12-01T09:00:00Z',
        },
      },
      archivedSessionIds: [],
      pendingCreates: {},
      sessionStates: {
        [f('tool-calls').id]: { lifecycle: 'active', generation: 1 },
        [imported.id]: { lifecycle: 'active', generation: 1 },
      },
      sourceMappings: {
        'v4:tools': {
          sourceKey: 'v4:tools',
          path: toolCallsV4,
          format: 'v4',
          fingerprint: 'f1',
          sessionId: f('tool-calls').id,
          workspaceId: 'ws-tools',
        },
        'jsonl:legacy-demo': {
          sourceKey: 'jsonl:legacy-demo',
          path: jsonlTranscript,
          format: 'jsonl',
          fingerprint: 'f2',
          sessionId: imported.id,
          workspaceId: 'ws-legacy',
        },
      },
    })}\n`,
  );

  // Things that are never sessions: dot-directories (docs/format.md §2, §9.9) and JSONL sidecars (docs/format.md §11.2).
  const plainStore = join(stateRoot, 'projects', slugOf('plain-chat'), 'sessions-v4');
  await cp(f('plain-chat').dir, join(plainStore, '.trash', f('plain-chat').id), { recursive: true });
  await cp(f('plain-chat').dir, join(plainStore, `.${'ab'.repeat(16)}.tmp-0123456789`), { recursive: true });
  await mkdir(join(plainStore, '.query-cache', f('plain-chat').id), { recursive: true });
  await writeFile(join(plainStore, '.query-cache', f('plain-chat').id, 'catalog-metadata.json'), '{"version":5}\n');
  await mkdir(join(plainStore, '.recovery-cache', f('plain-chat').id), { recursive: true });
  await mkdir(join(byId, '.content-v1'), { recursive: true });
  await cp(f('plain-chat').dir, join(stateRoot, 'projects', '.hidden-slug', 'sessions-v4', f('plain-chat').id), {
    recursive: true,
  });
  // Sidecars of a transcript that is not there: beside the migrated one, they would be part of what Reasonix
  // hashes to know it unchanged since its migration (docs/format.md §10.1).
  for (const sidecar of ['events', 'turns', 'conflicts', 'guardian', 'wire', 'adjudication', 'execution']) {
    await writeFile(join(jsonlDir, `worker-demo.${sidecar}.jsonl`), '{"role":"user","content":"not a transcript"}\n');
  }
  await writeFile(join(jsonlDir, 'subagent-worker-1.jsonl'), '{"role":"user","content":"a worker log"}\n');
  await writeFile(join(jsonlDir, 'worker-demo.goal-state.json'), '{}\n');
  await writeFile(join(jsonlDir, 'legacy-demo.jsonl.lock'), '');
  await writeFile(join(jsonlDir, '.titles.json'), '{}\n');
  await mkdir(join(jsonlDir, 'subagents'), { recursive: true });
  await writeFile(join(jsonlDir, 'subagents', 'worker.jsonl'), '{"role":"user","content":"nested"}\n');

  // A global JSONL transcript without meta.
  await mkdir(join(stateRoot, 'sessions'), { recursive: true });
  await writeFile(
    join(stateRoot, 'sessions', 'loose-notes.jsonl'),
    [
      '{"role":"system","content":"You help."}',
      '{"role":"user","content":"Quick question about regex lookbehind"}',
      '{"role":"assistant","content":"Sure."}',
      '',
    ].join('\n'),
  );

  // A legacy root (docs/format.md §1.4): the pre-import original of the JSONL transcript, and a v0.x transcript.
  const legacyTranscript = join(legacyRoot, 'projects', slugOf('jsonl-migrated'), 'sessions', 'legacy-demo.jsonl');
  await mkdir(join(legacyTranscript, '..'), { recursive: true });
  await cp(jsonlTranscript, legacyTranscript);
  await cp(`${jsonlTranscript}.meta`, `${legacyTranscript}.meta`);
  const v0Transcript = join(legacyRoot, 'sessions', 'v0-chat.jsonl');
  await mkdir(join(v0Transcript, '..'), { recursive: true });
  await writeFile(v0Transcript, '{"role":"user","content":"hello from v0"}\n{"role":"assistant","content":"hi"}\n');
  await writeFile(
    join(legacyRoot, 'sessions', 'v0-chat.meta.json'),
    `${JSON.stringify({ workspace: V0_WORKSPACE, summary: 'Old v0 chat' })}\n`,
  );
  await stampTimes([stateRoot, legacyRoot]);

  return {
    home,
    stateRoot,
    legacyRoot,
    ids: {
      plainChat: f('plain-chat').id,
      toolCalls: f('tool-calls').id,
      titledFork: f('titled').id,
      titledParent: basename(
        (JSON.parse(await readFile(join(f('titled').root, 'fixture.json'), 'utf8')) as { otherSessionDirs: string[] })
          .otherSessionDirs[0]!,
      ),
      payloadRef: f('payload-ref').id,
      jsonlTwin: f('jsonl-migrated').id,
      jsonlStem: 'legacy-demo',
      desktopImport: imported.id,
      cjkGlobal: f('cjk-emoji').id,
      damaged: f('interrupted').id,
      desktopOnly: f('compacted').id,
      looseJsonl: 'loose-notes',
      v0: 'v0-chat',
    },
    workspaces,
    paths: { jsonlTranscript, legacyTranscript, v0Transcript, damagedLog },
  };
}
