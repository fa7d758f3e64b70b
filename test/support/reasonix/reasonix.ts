// Runs the real Reasonix 1.38.11 (dev dependency, linux-x64 only) offline against the mock model,
// with a scratch home as its state root (shared/spec/driving-reasonix-offline.md).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { reasonixToolsPath } from './tools-path.js';
import { bytesRead, READ_WITHOUT_END_BYTES } from './reading-without-end.js';
import { waitingOnFifo } from './waiting-on-fifo.js';
import { startMockModel, type ChatRequest, type MockModel, type MockReply } from './mock-model.js';

export const REASONIX_VERSION = '1.38.11';
const PLATFORM_PACKAGE = '@reasonix/cli-linux-x64';

/**
 * Path of the real Reasonix binary; null only where its platform has none (it exists for
 * linux-x64 alone). On linux-x64 a missing binary throws: the tests it judges must fail there,
 * never skip.
 */
export function reasonixBinary(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  let bin: string;
  try {
    bin = join(dirname(createRequire(import.meta.url).resolve(`${PLATFORM_PACKAGE}/package.json`)), 'bin', 'reasonix');
  } catch {
    throw new Error(
      `the real Reasonix ${REASONIX_VERSION} is missing on linux-x64, where the tests need it: ${PLATFORM_PACKAGE} is not installed (npm ci installs it through test/reasonix-binary)`,
    );
  }
  if (!existsSync(bin))
    throw new Error(
      `the real Reasonix ${REASONIX_VERSION} is missing on linux-x64, where the tests need it: ${bin} does not exist`,
    );
  return bin;
}

/** Why tests that need the real binary are skipped here (only where the platform has no binary). */
export function reasonixAbsentMessage(): string {
  return `no Reasonix ${REASONIX_VERSION} binary for ${process.platform}-${process.arch} (${PLATFORM_PACKAGE} exists for linux-x64 only)`;
}

/** A title for tests the real Reasonix judges, saying why they are skipped where its platform has no binary. */
export function reasonixTitle(title: string): string {
  return reasonixBinary() ? title : `${title} — skipped: ${reasonixAbsentMessage()}`;
}

/**
 * Slug of a workspace path for ordinary short ASCII paths only: `/`, `\` and `:` become `-` (docs/format.md §1.3).
 * Test-support stand-in; the real rule (Windows lower-casing, the 255-byte FNV-1a bound) belongs to src/store.
 */
export function simpleWorkspaceSlug(workspace: string): string {
  return workspace.replace(/[/\\:]/g, '-');
}

export type PermissionMode = 'read-only' | 'workspace-write' | 'danger-full-access';

export interface ReasonixConfig {
  /** Provider context window; small values force automatic compaction. Default 1 000 000. */
  contextWindow?: number;
  /** `[agent] compact_ratio` (0.3–0.85). Reasonix's default applies when unset. */
  compactRatio?: number;
}

export interface RunOptions extends ReasonixConfig {
  /** Scratch folder used as HOME and REASONIX_HOME, hence the state root. */
  home: string;
  /** Working directory: the workspace whose store Reasonix uses. */
  cwd: string;
  /** Arguments after the binary, e.g. `['run', 'hello']`. */
  args: string[];
  mock: MockModel;
  /** Inserted after the subcommand as `--permission-mode <mode>`; the bash tool needs `danger-full-access` without bubblewrap. */
  permissionMode?: PermissionMode;
  env?: Record<string, string>;
  /** Kill with SIGKILL after this long. Default 60 s. */
  timeoutMs?: number;
  /** Send `signal` once the mock has received `afterChatRequests` chat requests (plus `delayMs`). */
  interrupt?: { afterChatRequests: number; signal: NodeJS.Signals; delayMs?: number };
  /** Run as this user and group id (through `setpriv`, when the tests run as root; otherwise as this process's user). */
  asUser?: number;
  /**
   * Kill it once it is seen waiting in the open of a FIFO for a writer (Linux): one the test planted and never
   * writes, so it would wait for ever. `waitedOnFifo` says so.
   */
  stopWhenWaitingOnFifo?: boolean;
  /**
   * Kill it once it has read more than `READ_WITHOUT_END_BYTES` (Linux): a file planted as a link to `/dev/zero`,
   * which it would read for ever. `readWithoutEnd` says so.
   */
  stopWhenReadingWithoutEnd?: boolean;
}

/** The command and arguments that run `bin` as `user` (root drops to it with `setpriv`; any other user runs it as itself). */
export function commandAsUser(bin: string, args: string[], user: number | undefined): [string, string[]] {
  if (user === undefined || process.getuid?.() !== 0) return [bin, args];
  return ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--clear-groups', bin, ...args]];
}

export interface RunResult {
  /** Exit code, or null when the process ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Killed when seen waiting on a FIFO (`stopWhenWaitingOnFifo`). */
  waitedOnFifo: boolean;
  /** Killed when seen reading without end (`stopWhenReadingWithoutEnd`). */
  readWithoutEnd: boolean;
  stdout: string;
  stderr: string;
}

const API_KEY_ENV = 'RXSTORE_MOCK_API_KEY';
export const MOCK_MODEL_REF = 'mock/mock-model';

/** Writes `<home>/config.toml` and `<home>/.env` pointing the only provider at the mock. */
export async function writeReasonixConfig(home: string, baseUrl: string, config: ReasonixConfig = {}): Promise<void> {
  const lines = [
    'config_version = 1',
    `default_model = "${MOCK_MODEL_REF}"`,
    '',
    '[telemetry]',
    'cli_metrics = "off"', // otherwise the UI asks a yes/no question first
    '',
  ];
  if (config.compactRatio !== undefined) lines.push('[agent]', `compact_ratio = ${config.compactRatio}`, '');
  lines.push(
    '[[providers]]',
    'name = "mock"',
    'kind = "openai"',
    `base_url = "${baseUrl}"`,
    'models = ["mock-model"]',
    'default = "mock-model"',
    `api_key_env = "${API_KEY_ENV}"`,
    `context_window = ${config.contextWindow ?? 1_000_000}`,
    '',
  );
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'config.toml'), lines.join('\n'));
  // Reasonix reads API keys only from <REASONIX_HOME>/.env.
  await writeFile(join(home, '.env'), `${API_KEY_ENV}=sk-rxstore-mock\n`);
}

/** Process environment isolating Reasonix in a scratch home, with only the tools its runs use on PATH. */
export function reasonixEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: reasonixToolsPath(),
    ...extra,
    HOME: home,
    REASONIX_HOME: home,
  };
  // With REASONIX_HOME set and these unset, the state root is the scratch home and no legacy root is imported (§1.1, §1.4).
  delete env.REASONIX_STATE_HOME;
  delete env.REASONIX_CACHE_HOME;
  delete env.XDG_CONFIG_HOME;
  return env;
}

/**
 * Runs of the real Reasonix allowed at once in this test process: one per core. A run waits for a
 * free slot before it starts, so its timeout measures the run, not the queue.
 */
const slots = { free: availableParallelism(), waiting: [] as (() => void)[] };

async function takeSlot(): Promise<() => void> {
  if (slots.free > 0) slots.free -= 1;
  else await new Promise<void>((resolve) => slots.waiting.push(resolve));
  return () => {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free += 1;
  };
}

export async function runReasonix(options: RunOptions): Promise<RunResult> {
  const bin = reasonixBinary();
  if (!bin) throw new Error(reasonixAbsentMessage());
  const release = await takeSlot();
  try {
    return await runReasonixNow(bin, options);
  } finally {
    release();
  }
}

async function runReasonixNow(bin: string, options: RunOptions): Promise<RunResult> {
  await writeReasonixConfig(options.home, options.mock.baseUrl, options);

  const [subcommand, ...rest] = options.args;
  const args =
    options.permissionMode && subcommand
      ? [subcommand, '--permission-mode', options.permissionMode, ...rest]
      : options.args;

  const [command, argv] = commandAsUser(bin, args, options.asUser);
  const child = spawn(command, argv, {
    cwd: options.cwd,
    env: reasonixEnv(options.home, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 60_000);

  let waitedOnFifo = false;
  let readWithoutEnd = false;
  const watch =
    options.stopWhenWaitingOnFifo || options.stopWhenReadingWithoutEnd
      ? setInterval(() => {
          if (child.pid === undefined) return;
          if (options.stopWhenWaitingOnFifo && waitingOnFifo(child.pid)) waitedOnFifo = true;
          else if (options.stopWhenReadingWithoutEnd && bytesRead(child.pid) > READ_WITHOUT_END_BYTES)
            readWithoutEnd = true;
          else return;
          child.kill('SIGKILL');
        }, 100)
      : undefined;

  const { interrupt } = options;
  if (interrupt) {
    void options.mock.waitForChatRequests(interrupt.afterChatRequests).then(async () => {
      await new Promise((resolve) => setTimeout(resolve, interrupt.delayMs ?? 0));
      if (child.exitCode === null && child.signalCode === null) child.kill(interrupt.signal);
    });
  }

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  });
  clearTimeout(timer);
  clearInterval(watch);
  return { code, signal, timedOut, waitedOnFifo, readWithoutEnd, stdout, stderr };
}

/** Session directories of every workspace store under a state root: `<state>/projects/*\/sessions-v4/*` (§1.2, §2). */
export function listSessionDirs(stateRoot: string): string[] {
  const projects = join(stateRoot, 'projects');
  if (!existsSync(projects)) return [];
  return subdirs(projects)
    .map((slug) => join(projects, slug, 'sessions-v4'))
    .filter((store) => existsSync(store))
    .flatMap((store) => subdirs(store).map((id) => join(store, id)));
}

/** Non-hidden subdirectories; names starting with `.` are never sessions (§2). */
function subdirs(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.') && statSync(join(dir, name)).isDirectory())
    .sort();
}

export interface ResumeOptions {
  /** Workspace to run from; its slug picks the store the session is laid into (created if missing). */
  workspace: string;
  prompt: string;
  /** Replies for this run; default one plain text. */
  mock?: MockReply[];
  /** With a state root holding several sessions: which one. */
  id?: string;
  /** Scratch home to use (must not hold another copy of the session); default a fresh temp folder, which the caller removes. */
  home?: string;
  permissionMode?: PermissionMode;
  timeoutMs?: number;
}

export interface ResumeResult extends RunResult {
  /** Chat-completion request bodies the mock received, in order. */
  requests: ChatRequest[];
  /** The session directory after the run (inside the scratch home). */
  sessionDir: string;
  home: string;
}

/**
 * Copies a session (a session directory, or a state root holding it) into a fresh scratch state root at
 * `projects/<slug(workspace)>/sessions-v4/<id>/` — the only place `run --resume <id>` looks (docs/format.md §13.1) —
 * together with its store's `.content-v1` (§6.2), then runs `reasonix run --resume <id> <prompt>` from the
 * workspace. The source is never modified.
 */
export async function resumeWithReasonix(sessionDirOrStateRoot: string, options: ResumeOptions): Promise<ResumeResult> {
  const source = pickSession(sessionDirOrStateRoot, options.id);
  const id = basename(source);
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'rxstore-resume-')));
  const sessionDir = await layForResume(source, home, options.workspace);

  const mock = await startMockModel(options.mock ?? [{ text: 'Resumed.' }]);
  try {
    const result = await runReasonix({
      home,
      cwd: options.workspace,
      args: ['run', '--resume', id, options.prompt],
      mock,
      permissionMode: options.permissionMode ?? 'danger-full-access',
      timeoutMs: options.timeoutMs,
    });
    return { ...result, requests: mock.chatRequests(), sessionDir, home };
  } finally {
    await mock.close();
  }
}

/** A state root has `projects/`; anything else is taken as a session directory, even a damaged one without a manifest. */
/**
 * Copies a session directory (and its store's `.content-v1`) to where `run --resume <id>` from
 * `workspace` looks for it under `home` (docs/format.md §13.1), creating the workspace; returns the copy.
 */
export async function layForResume(source: string, home: string, workspace: string): Promise<string> {
  const store = join(home, 'projects', simpleWorkspaceSlug(workspace), 'sessions-v4');
  const sessionDir = join(store, basename(source));
  await cp(source, sessionDir, { recursive: true });
  const content = join(dirname(source), '.content-v1');
  if (existsSync(content)) await cp(content, join(store, '.content-v1'), { recursive: true });
  await mkdir(workspace, { recursive: true });
  return sessionDir;
}

function pickSession(path: string, id: string | undefined): string {
  if (!existsSync(join(path, 'projects'))) return path;
  const found = listSessionDirs(path).filter((dir) => id === undefined || basename(dir) === id);
  if (found.length !== 1 || !found[0]) {
    throw new Error(`${path}: expected one session directory${id ? ` with id ${id}` : ''}, found ${found.length}`);
  }
  return found[0];
}
