// Regenerates fixtures/ from the real Reasonix 1.38.11 driven by the mock model (npm run fixtures [name…]).
// Each fixture directory mirrors the state root Reasonix ran with (/tmp/rxstore-fixture-home/<name>), keeping
// only the sessions it is about, their store's content store and migration map; caches are dropped (docs/format.md §9.9).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decompress } from 'zstd-napi';
import { startMockModel, type MockReply } from '../test/support/reasonix/mock-model.js';
import { startReasonixServe } from '../test/support/reasonix/reasonix-serve.js';
import {
  listSessionDirs,
  reasonixAbsentMessage,
  reasonixBinary,
  REASONIX_VERSION,
  runReasonix,
  simpleWorkspaceSlug,
  type RunOptions,
} from '../test/support/reasonix/reasonix.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
/** Stable paths, so the workspace and state root recorded inside the sessions are the same on every machine. */
const HOME_ROOT = '/tmp/rxstore-fixture-home';
const WORKSPACE_ROOT = '/tmp/rxstore-fixture-ws';

/** One Reasonix invocation as the README tells it. */
interface Step {
  command: string;
  script: MockReply[];
  note?: string;
  code: number | null;
}

interface Context {
  name: string;
  home: string;
  workspace: string;
  steps: Step[];
}

interface Built {
  /** The session the fixture is about. */
  sessionDir: string;
  /** Other sessions kept beside it (e.g. a fork's parent). */
  otherSessionDirs?: string[];
  /** Also keep the store's JSONL directory (`projects/<slug>/sessions/`). */
  keepJsonl?: boolean;
  /** Bullet points for the README's "What it holds". */
  holds: string[];
}

interface Recipe {
  name: string;
  summary: string;
  build(ctx: Context): Promise<Built>;
  /** Fails generation when the result is not what the fixture is for. */
  check(counts: Counts): string | undefined;
}

interface RunStep {
  args: string[];
  script: MockReply[];
  expectCode?: number;
  note?: string;
  options?: Partial<Pick<RunOptions, 'contextWindow' | 'compactRatio' | 'interrupt' | 'timeoutMs'>>;
}

/** Runs `reasonix <args>` from the workspace against a fresh mock and records the step. */
async function run(ctx: Context, step: RunStep): Promise<void> {
  const mock = await startMockModel(step.script);
  try {
    const result = await runReasonix({
      home: ctx.home,
      cwd: ctx.workspace,
      args: step.args,
      mock,
      permissionMode: 'danger-full-access', // the bash tool needs it without bubblewrap
      ...step.options,
    });
    ctx.steps.push({ command: commandLine(step.args), script: step.script, note: step.note, code: result.code });
    if (result.code !== (step.expectCode ?? 0)) {
      throw new Error(
        `${ctx.name}: ${commandLine(step.args)} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
      );
    }
  } finally {
    await mock.close();
  }
}

function onlySession(ctx: Context): string {
  const [dir, ...more] = listSessionDirs(ctx.home);
  if (!dir || more.length) throw new Error(`${ctx.name}: expected one session, found ${more.length + (dir ? 1 : 0)}`);
  return dir;
}

const text = (t: string): MockReply => ({ text: t });
const words = (n: number, word: string): string => Array.from({ length: n }, () => word).join(' ');

const RECIPES: Recipe[] = [
  {
    name: 'plain-chat',
    summary: 'One `reasonix run` with a plain-text reply.',
    async build(ctx) {
      await run(ctx, {
        args: ['run', 'Say hello in one short sentence.'],
        script: [text('Hello! How can I help you today?')],
      });
      return {
        sessionDir: onlySession(ctx),
        holds: ['one completed turn: host session-context, user prompt, assistant text'],
      };
    },
    check: (c) => expect(c.turnEnds.completed === 1, 'one completed turn'),
  },
  {
    name: 'tool-calls',
    summary:
      'Three turns (`run`, `run --resume <id>`, `run -c`) with bash (ok and failing), read_file, write_file and edit_file calls, two of them parallel.',
    async build(ctx) {
      await writeFile(join(ctx.workspace, 'notes.txt'), 'alpha\nbeta\ngamma\n');
      await run(ctx, {
        args: ['run', 'List the files in this workspace.'],
        script: [
          {
            text: 'Let me look.',
            toolCalls: [{ id: 'call_ls', name: 'bash', arguments: { command: 'echo listing && ls' } }],
          },
          text('The workspace holds notes.txt.'),
        ],
      });
      const id = basename(onlySession(ctx));
      await run(ctx, {
        args: ['run', '--resume', id, 'Show the contents of the missing directory.'],
        script: [
          { toolCalls: [{ id: 'call_missing', name: 'bash', arguments: { command: 'ls missing-dir' } }] },
          text('There is no missing-dir here; the command failed with exit status 2.'),
        ],
      });
      await run(ctx, {
        args: ['run', '-c', 'Read notes.txt, create new.txt, then capitalise beta.'],
        script: [
          {
            text: 'Reading and writing in parallel.',
            toolCalls: [
              { id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } },
              {
                id: 'call_write',
                name: 'write_file',
                arguments: { path: 'new.txt', content: 'created by the mock\n' },
              },
            ],
          },
          {
            toolCalls: [
              {
                id: 'call_edit',
                name: 'edit_file',
                arguments: { path: 'notes.txt', old_string: 'beta', new_string: 'BETA' },
              },
            ],
          },
          text('Done: new.txt created and beta capitalised in notes.txt.'),
        ],
      });
      return {
        sessionDir: onlySession(ctx),
        holds: [
          'turn 1: `bash` `echo listing && ls` (exit 0), then text',
          'turn 2 (`--resume <id>`): `bash` `ls missing-dir` (exit 2: `tool_execution.state` failed), then text',
          'turn 3 (`-c`): parallel `read_file` + `write_file` in one assistant message, then `edit_file`, then text',
          'tool/call, tool/start, tool/result events around every call',
        ],
      };
    },
    check: (c) =>
      expect(c.turnEnds.completed === 3, 'three completed turns') ??
      expect((c.messagesByRole.tool ?? 0) === 5, 'five tool results'),
  },
  {
    name: 'payload-ref',
    summary: "A prompt and a bash tool result over 64 KiB, stored through payloadRef in the store's `.content-v1`.",
    async build(ctx) {
      const line = (i: number): string =>
        `line ${String(i).padStart(5, '0')} of generated text that makes a large payload\n`;
      const bigFile = Array.from({ length: 1300 }, (_, i) => line(i)).join('');
      await writeFile(join(ctx.workspace, 'big.txt'), bigFile);
      const prompt = `Summarise these lines:\n${Array.from({ length: 1200 }, (_, i) => line(i)).join('')}`;
      const kb = (s: string): string => `${Math.round(Buffer.byteLength(s) / 1024)} KiB`;
      await run(ctx, {
        args: ['run', prompt],
        script: [
          { toolCalls: [{ id: 'call_cat', name: 'bash', arguments: { command: 'cat big.txt' } }] },
          text('Both the prompt and big.txt are numbered lines.'),
        ],
        note: `the prompt is "Summarise these lines:" and 1200 generated lines (${kb(prompt)}); big.txt is 1300 such lines (${kb(bigFile)})`,
      });
      return {
        sessionDir: onlySession(ctx),
        holds: [
          `the user message (content and raw_content, ${kb(prompt)} each) and the bash tool message (the ${kb(bigFile)} output of \`cat big.txt\`) as payloadRef events`,
          '`.content-v1/objects/…` and `.content-v1/indexes/…` for them; Reasonix also stored unreferenced objects for its recent-messages cache',
        ],
      };
    },
    check: (c) => expect(c.payloadRefs >= 2, 'at least two payloadRef events'),
  },
  {
    name: 'cjk-emoji',
    summary: 'CJK text and emoji (astral, ZWJ sequences) in the prompt and the reply.',
    async build(ctx) {
      await run(ctx, {
        args: ['run', '请用一句话总结这个项目 🚀 日本語も大丈夫？ 한국어도 돼요 👩‍💻🎉'],
        script: [text('这是一个测试项目 ✅ — テストです 🍣, 테스트입니다 🇰🇷 👨‍👩‍👧‍👦')],
      });
      return {
        sessionDir: onlySession(ctx),
        holds: ['one completed turn whose prompt and reply mix Chinese, Japanese, Korean and emoji'],
      };
    },
    check: (c) => expect(c.turnEnds.completed === 1, 'one completed turn'),
  },
  {
    name: 'titled',
    summary: 'A session forked with a name by `reasonix serve` (`POST /fork-session`), which writes `session/title`.',
    async build(ctx) {
      await run(ctx, {
        args: ['run', 'Plan a small refactor of notes.txt.'],
        script: [text('Plan: split notes.txt into sections.')],
      });
      const parent = onlySession(ctx);
      const parentId = basename(parent);
      const mock = await startMockModel([]);
      const serve = await startReasonixServe({ home: ctx.home, cwd: ctx.workspace, mock });
      let childId: string;
      try {
        const expected = { 'X-Reasonix-Expected-Session-ID': parentId };
        await serveCall(serve.request('POST', '/resume', { sessionId: parentId }));
        const targets = (await serveCall(serve.request('GET', '/fork-targets', undefined, expected))) as {
          targets: { turnId: string; boundarySequence: number }[];
        };
        const target = targets.targets[0];
        if (!target) throw new Error('titled: no fork target');
        const fork = {
          sourceSessionId: parentId,
          ...pick(target),
          name: 'Refactor plan (fork)',
          operationId: 'rxstore-fixture-fork-1',
        };
        childId = ((await serveCall(serve.request('POST', '/fork-session', fork, expected))) as { sessionId: string })
          .sessionId;
        ctx.steps.push({
          command: 'reasonix serve --addr 127.0.0.1:0 --auth none --no-open --port-file <file>',
          script: [],
          note:
            `then POST /resume {"sessionId":"<parent>"}; GET /fork-targets and POST /fork-session ` +
            `${JSON.stringify({ ...fork, sourceSessionId: '<parent>', turnId: '<turn>' })}, both with header ` +
            'X-Reasonix-Expected-Session-ID: <parent>; then SIGINT',
          code: (await serve.stop()).code,
        });
      } catch (error) {
        await serve.stop();
        throw error;
      } finally {
        await mock.close();
      }
      return {
        sessionDir: join(dirname(parent), childId),
        otherSessionDirs: [parent],
        holds: [
          'the fork (fixture.json `sessionDir`): the parent\'s commits re-written as `inherit:<parent>:<commit>`, then a `session-title:<hex>` commit with `session/title` "Refactor plan (fork)"; manifest with `inheritedEventCount` and `source` = the parent directory',
          'the parent session (fixture.json `otherSessionDirs`), one completed turn',
          'serve also created an empty session of its own at start-up; it is not kept',
        ],
      };
    },
    check: (c) => expect((c.eventsByKind['session/title'] ?? 0) === 1, 'one session/title'),
  },
  {
    name: 'jsonl-migrated',
    summary:
      'A hand-written JSONL transcript (+ .jsonl.meta) that Reasonix migrated into sessions-v4 on `run --resume <stem>`.',
    async build(ctx) {
      const jsonlDir = join(ctx.home, 'projects', simpleWorkspaceSlug(ctx.workspace), 'sessions');
      await mkdir(jsonlDir, { recursive: true });
      const transcript = [
        { role: 'system', content: 'You are a legacy assistant.' },
        { role: 'user', content: 'What files are here?' },
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [{ id: 'call_legacy_1', name: 'bash', arguments: '{"command":"ls"}' }],
        },
        { role: 'tool', tool_call_id: 'call_legacy_1', name: 'bash', content: 'README.md\n' },
        { role: 'assistant', content: 'There is one file: README.md.' },
      ];
      const meta = {
        id: 'legacy-demo',
        created_at: '2025-06-01T10:00:00Z',
        updated_at: '2025-06-01T10:05:00Z',
        scope: 'project',
        workspace_root: ctx.workspace,
        turns: 1,
        preview: 'What files are here?',
      };
      await writeFile(join(jsonlDir, 'legacy-demo.jsonl'), transcript.map((m) => `${JSON.stringify(m)}\n`).join(''));
      await writeFile(join(jsonlDir, 'legacy-demo.jsonl.meta'), `${JSON.stringify(meta, null, 2)}\n`);
      ctx.steps.push({
        command: 'write projects/<slug>/sessions/legacy-demo.jsonl and legacy-demo.jsonl.meta',
        note: 'hand-written (5 messages, flat tool_calls; docs/format.md §11.1, §11.3), kept unchanged in this fixture',
        script: [],
        code: null,
      });
      await run(ctx, {
        args: ['run', '--resume', 'legacy-demo', 'And what now?'],
        script: [text('Continuing the legacy session.')],
      });
      return {
        sessionDir: onlySession(ctx),
        keepJsonl: true,
        holds: [
          'the original `projects/<slug>/sessions/legacy-demo.jsonl` and `.jsonl.meta` (unchanged by Reasonix)',
          'the migrated session (24-hex id derived from path + source digest, docs/format.md §10.1) with `legacy/` byte copies, a `legacy-import:<sha>:messages:0` commit of the five messages, `legacy-import-config:<hex>` session/config, then one completed turn',
          '`sessions-v4/migration-map.json` (+ `.lock`)',
        ],
      };
    },
    check: (c) =>
      expect(c.turnEnds.completed === 1 && (c.messagesByRole.tool ?? 0) === 1, 'the import and one completed turn'),
  },
  {
    name: 'interrupted',
    summary:
      'A completed turn, a turn that failed (the mock dropped the connection on every attempt), and a turn interrupted by SIGINT.',
    async build(ctx) {
      await run(ctx, { args: ['run', 'Start the long task.'], script: [text('Ready to start.')] });
      const drop: MockReply = { holdMs: 200, dropConnection: true };
      await run(ctx, {
        args: ['run', '-c', 'Continue the long task.'],
        script: [drop, drop, drop, drop],
        expectCode: 1,
        note: 'the mock destroys the connection after 200 ms on each of the 4 attempts Reasonix makes (`error: mock: read stream: unexpected EOF`)',
      });
      await run(ctx, {
        args: ['run', '-c', 'Try the long task once more.'],
        script: [{ text: 'never sent', holdMs: 30_000 }],
        expectCode: 1,
        options: { interrupt: { afterChatRequests: 1, signal: 'SIGINT', delayMs: 1000 } },
        note: 'the mock holds its reply; SIGINT 1 s after the request arrived (`error: context canceled`)',
      });
      return {
        sessionDir: onlySession(ctx),
        holds: [
          'turn 1 completed',
          'turn 2: four `assistant/attempt` begin/discard pairs (reason `premature_eof`), a local-only `interrupted_turn` tool message (`terminalStatus: failed`), `turn/end` failed',
          'turn 3: `assistant/attempt` begin, a local-only `interrupted_turn` message (`terminalStatus: interrupted`), attempt commit (reason `interrupted`), `turn/end` interrupted',
        ],
      };
    },
    check: (c) =>
      expect(
        c.turnEnds.completed === 1 && c.turnEnds.failed === 1 && c.turnEnds.interrupted === 1,
        'completed, failed and interrupted turns',
      ),
  },
  {
    name: 'compacted',
    summary:
      'Six turns with a 40 000-token context window and compact_ratio 0.5, so Reasonix compacts automatically (`model/context-replace`).',
    async build(ctx) {
      const options = { contextWindow: 40_000, compactRatio: 0.5 };
      for (let turn = 1; turn <= 6; turn++) {
        const prompt = `Turn ${turn}: ${words(300, 'lorem ipsum dolor sit amet')}`;
        await run(ctx, {
          args: turn === 1 ? ['run', prompt] : ['run', '-c', prompt],
          script: [text(`Answer ${turn}: ${words(400, 'words')}`)],
          options,
          note: `prompt "Turn ${turn}: " + "lorem ipsum dolor sit amet" × 300; reply "Answer ${turn}: " + "words" × 400`,
        });
      }
      return {
        sessionDir: onlySession(ctx),
        holds: [
          "six completed turns; during turn 6 Reasonix sent a compaction request (answered with the mock's fixed summary, not from the script) and wrote a `model-context-maintenance:summary-1-<hex>` commit holding `model/context-replace` (reason `summary`): system, the latest host context, a `<compaction-summary>` user message without id, the latest user prompt",
        ],
      };
    },
    check: (c) => expect((c.eventsByKind['model/context-replace'] ?? 0) >= 1, 'a model/context-replace'),
  },
];

function expect(ok: boolean, what: string): string | undefined {
  return ok ? undefined : `expected ${what}`;
}

function pick(target: { turnId: string; boundarySequence: number }): { turnId: string; boundarySequence: number } {
  return { turnId: target.turnId, boundarySequence: target.boundarySequence };
}

async function serveCall(response: Promise<{ status: number; body: unknown }>): Promise<unknown> {
  const { status, body } = await response;
  if (status >= 300) throw new Error(`reasonix serve answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

function commandLine(args: string[]): string {
  return ['reasonix', ...args.slice(0, 1), '--permission-mode', 'danger-full-access', ...args.slice(1)]
    .map((a) =>
      a.length > 120
        ? `${JSON.stringify(`${a.slice(0, 60)}…`)} (${Buffer.byteLength(a)} bytes)`
        : /[\s"'&|]/.test(a)
          ? JSON.stringify(a)
          : a,
    )
    .join(' ');
}

interface Counts {
  frames: number;
  batches: number;
  events: number;
  payloadRefs: number;
  eventsByKind: Record<string, number>;
  /** `message/complete` events by message role. */
  messagesByRole: Record<string, number>;
  turnEnds: Record<string, number>;
}

/**
 * Fixture-note helper, not the product codec: walks RX4F frames ("RX4F", uint32 BE compressed size, uint32 BE raw
 * size, one zstd frame holding a JSON record; docs/format.md §3–§4) and counts what the README reports. Payloads are base64
 * JSON inline or, via payloadRef, an object in the store's `.content-v1` (§6).
 */
function countEvents(sessionDir: string): Counts {
  const log = readFileSync(join(sessionDir, 'events.frames'));
  const counts: Counts = {
    frames: 0,
    batches: 0,
    events: 0,
    payloadRefs: 0,
    eventsByKind: {},
    messagesByRole: {},
    turnEnds: {},
  };
  const bump = (table: Record<string, number>, key: string): void => void (table[key] = (table[key] ?? 0) + 1);
  const sorted = (table: Record<string, number>): Record<string, number> =>
    Object.fromEntries(Object.entries(table).sort(([a], [b]) => a.localeCompare(b)));
  for (let offset = 0; offset < log.length; counts.frames++) {
    if (log.toString('latin1', offset, offset + 4) !== 'RX4F')
      throw new Error(`${sessionDir}: bad frame magic at ${offset}`);
    const size = log.readUInt32BE(offset + 4);
    const record = JSON.parse(decompress(log.subarray(offset + 12, offset + 12 + size)).toString('utf8'));
    offset += 12 + size;
    if (record.recordType === 'batch/end') counts.batches++;
    if (record.recordType !== 'batch/event') continue;
    const event = record.event as { kind: string; payload?: string; payloadRef?: { digest: string } };
    counts.events++;
    bump(counts.eventsByKind, event.kind);
    let payload = event.payload ? Buffer.from(event.payload, 'base64').toString('utf8') : '';
    if (event.payloadRef) {
      counts.payloadRefs++;
      const d = event.payloadRef.digest;
      payload = readFileSync(join(sessionDir, '..', '.content-v1', 'objects', d.slice(0, 2), d.slice(2, 4), d), 'utf8');
    }
    if (event.kind === 'message/complete') bump(counts.messagesByRole, JSON.parse(payload).message.role);
    if (event.kind === 'turn/end') bump(counts.turnEnds, JSON.parse(payload).status);
  }
  return {
    ...counts,
    eventsByKind: sorted(counts.eventsByKind),
    messagesByRole: sorted(counts.messagesByRole),
    turnEnds: sorted(counts.turnEnds),
  };
}

/** Top-level store entries worth keeping for the chosen sessions; everything else is cache or staging. */
function keptStoreEntries(store: string, ids: string[]): string[] {
  return readdirSync(store).filter(
    (entry) =>
      ids.includes(entry) ||
      ids.some((id) => entry === `.${id}.ownership.lock`) ||
      entry === '.content-v1' ||
      entry.startsWith('migration-map.json'),
  );
}

async function exportFixture(recipe: Recipe, ctx: Context, built: Built): Promise<void> {
  const target = join(FIXTURES, recipe.name);
  await rm(target, { recursive: true, force: true });
  const store = dirname(built.sessionDir);
  const sessions = [built.sessionDir, ...(built.otherSessionDirs ?? [])];
  const targetStore = join(target, relative(ctx.home, store));
  await mkdir(targetStore, { recursive: true });
  for (const entry of keptStoreEntries(
    store,
    sessions.map((s) => basename(s)),
  )) {
    await cp(join(store, entry), join(targetStore, entry), {
      recursive: true,
      filter: (src) => basename(src) !== '.tmp', // content-store staging (§6.2)
    });
  }
  if (built.keepJsonl) {
    const jsonlDir = join(dirname(store), 'sessions');
    await cp(jsonlDir, join(target, relative(ctx.home, jsonlDir)), { recursive: true });
  }

  const counts = countEvents(built.sessionDir);
  const problem = recipe.check(counts);
  if (problem) throw new Error(`${recipe.name}: ${problem}; got ${JSON.stringify(counts)}`);
  const fixture = {
    name: recipe.name,
    reasonixVersion: REASONIX_VERSION,
    id: basename(built.sessionDir),
    sessionDir: relative(ctx.home, built.sessionDir),
    ...(built.otherSessionDirs ? { otherSessionDirs: built.otherSessionDirs.map((d) => relative(ctx.home, d)) } : {}),
    workspace: ctx.workspace,
    stateRoot: ctx.home,
    counts,
  };
  await writeFile(join(target, 'fixture.json'), `${JSON.stringify(fixture, null, 2)}\n`);
  await writeFile(join(target, 'README.md'), readme(recipe, ctx, built, fixture.sessionDir, counts));
  console.log(
    `${recipe.name}: ${fixture.sessionDir} (${counts.batches} batches, ${counts.events} events, ${directorySize(target)} bytes)`,
  );
}

function readme(recipe: Recipe, ctx: Context, built: Built, sessionDir: string, counts: Counts): string {
  const table = (t: Record<string, number>): string =>
    Object.entries(t)
      .map(([k, v]) => `| \`${k}\` | ${v} |`)
      .join('\n');
  const steps = ctx.steps
    .map((s, i) => {
      const lines = [`${i + 1}. \`${s.command}\`${s.code === null ? '' : ` — exit ${s.code}`}`];
      if (s.note) lines.push(`   - ${s.note}`);
      if (s.script.length) lines.push(`   - mock script: \`${JSON.stringify(s.script, abbreviate)}\``);
      return lines.join('\n');
    })
    .join('\n');
  return `# Fixture \`${recipe.name}\`

${recipe.summary}

Written by the real Reasonix ${REASONIX_VERSION} (\`@reasonix/cli-linux-x64\`) against the scripted mock model of
\`test/support/reasonix/mock-model.ts\`, by \`scripts/make-fixtures.ts\` (\`npm run fixtures -- ${recipe.name}\`). The bytes are
Reasonix's own; ids and timestamps change on every regeneration, the layout does not.

- Workspace (cwd of every run): \`${ctx.workspace}\`
- State root (HOME and REASONIX_HOME): \`${ctx.home}\` — this directory mirrors it
- Session directory: \`${sessionDir}\` (also in \`fixture.json\`)

## How it was made

${steps}

Every run had a fresh mock on 127.0.0.1; a mock reply without a script entry is the text "Done.".

## What it holds

${built.holds.map((h) => `- ${h}`).join('\n')}

Kept: the session director${built.otherSessionDirs ? 'ies' : 'y'} as Reasonix left ${built.otherSessionDirs ? 'them' : 'it'}, the store's \`.content-v1\`,
\`.<id>.ownership.lock\` and \`migration-map.json\` where written. Dropped: \`.query-cache/\`, \`.recovery-cache/\`
(disposable, docs/format.md §9.9), \`.content-v1/.tmp\`, other sessions, and everything outside the store. Files in the session
directory: ${filesIn(built.sessionDir)
    .map((f) => `\`${f}\``)
    .join(', ')}.

Counts for \`${sessionDir}\`: ${counts.frames} frames, ${counts.batches} batches, ${counts.events} events, ${counts.payloadRefs} payloadRef events.

| event kind | count |
|---|---|
${table(counts.eventsByKind)}

| message/complete role | count |
|---|---|
${table(counts.messagesByRole)}

| turn/end status | count |
|---|---|
${table(counts.turnEnds)}
`;
}

/** JSON.stringify replacer shortening long strings in the README. */
function abbreviate(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > 120
    ? `${value.slice(0, 60)}… (${Buffer.byteLength(value)} bytes)`
    : value;
}

function filesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .sort();
}

function directorySize(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => statSync(join(dir, p)))
    .filter((s) => s.isFile())
    .reduce((sum, s) => sum + s.size, 0);
}

async function main(): Promise<void> {
  if (!reasonixBinary()) throw new Error(reasonixAbsentMessage());
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !RECIPES.some((r) => r.name === w));
  if (unknown.length) throw new Error(`unknown fixture(s): ${unknown.join(', ')}`);
  for (const recipe of RECIPES.filter((r) => wanted.length === 0 || wanted.includes(r.name))) {
    const ctx: Context = {
      name: recipe.name,
      home: join(HOME_ROOT, recipe.name),
      workspace: join(WORKSPACE_ROOT, recipe.name),
      steps: [],
    };
    await rm(ctx.home, { recursive: true, force: true });
    await rm(ctx.workspace, { recursive: true, force: true });
    await mkdir(ctx.workspace, { recursive: true });
    const built = await recipe.build(ctx);
    if (!existsSync(join(built.sessionDir, 'manifest.json')))
      throw new Error(`${recipe.name}: no session at ${built.sessionDir}`);
    await exportFixture(recipe, ctx, built);
  }
}

await main();
