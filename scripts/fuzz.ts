// The long fuzz run (npm run fuzz -- [--seconds N] [--seed S] [--category C …] | --replay FILE): the generators and
// checks of test/session/reading/fuzz.test.ts for as long as it is given, on a fresh seed unless told one. The fuzzing runs in a
// child process under a watchdog, so a read that never returns (even one spinning synchronously) or one that runs
// out of memory is still reported with the input that did it. Each new finding's input is saved as JSON, and
// --replay checks one again. Exits 1 on any finding.
import { fork } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadBases, type Entry } from '../test/support/fuzz/fuzz-bases.js';
import { checkInput, collectGarbage, LIMITS, retainedBytes } from '../test/support/fuzz/fuzz-check.js';
import {
  CATEGORIES,
  fuzzInputs,
  type Category,
  type FuzzInput,
  type FuzzOptions,
} from '../test/support/fuzz/fuzz-inputs.js';
import { FuzzTally } from '../test/support/fuzz/fuzz-tally.js';
import { FuzzWorkspace } from '../test/support/fuzz/fuzz-workspace.js';

/** Longer than any check may take (a blocked read is let go after 12 s): silence this long is a hang. */
const SILENCE_MS = 30_000;
const PROGRESS_MS = 10_000;

type Note =
  | { type: 'input'; category: Category; index: number; recipe: string }
  | { type: 'done'; report: string; findings: number };

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string', default: String(randomInt(2 ** 31)) },
    category: { type: 'string', multiple: true },
    replay: { type: 'string' },
    /** Set by the supervisor for its child: where to lay inputs out. */
    root: { type: 'string' },
  },
});
const seconds = Number(args.seconds);
const seed = Number(args.seed);
const categories = (args.category ?? [...CATEGORIES]) as Category[];
const unknown = categories.filter((category) => !CATEGORIES.includes(category));
if (!Number.isFinite(seconds) || !Number.isInteger(seed) || unknown.length > 0) {
  console.error(
    `usage: scripts/fuzz.ts [--seconds N] [--seed S] [--category ${CATEGORIES.join('|')} …] | --replay FILE`,
  );
  process.exit(2);
}
const options: FuzzOptions = { seed, depth: 100_000, truncationSessionStride: 1, sparseBytes: 32 * 1024 * 1024 };

process.exitCode = args.replay ? await replay(args.replay) : args.root ? await fuzz(args.root) : await supervise();

/** Runs the fuzzing in a child and watches it: the child reports each input before checking it. */
async function supervise(): Promise<number> {
  console.log(`rxstore fuzz: seed ${seed}, ${seconds} s, ${categories.join(' ')}`);
  // Made and removed here: a child killed for hanging cannot clean up after itself.
  const root = await mkdtemp(join(tmpdir(), 'rxstore-fuzz-'));
  const child = fork(
    fileURLToPath(import.meta.url),
    [
      '--root',
      root,
      '--seconds',
      String(seconds),
      '--seed',
      String(seed),
      ...categories.flatMap((category) => ['--category', category]),
    ],
    {
      execArgv: ['--import', 'tsx', '--expose-gc'],
    },
  );
  // Ctrl-C reaches the child too, which stops early and still reports.
  process.on('SIGINT', () => undefined);
  let last: Extract<Note, { type: 'input' }> | undefined;
  let done: Extract<Note, { type: 'done' }> | undefined;
  let heard = Date.now();
  let hung = false;
  child.on('message', (note: Note) => {
    heard = Date.now();
    if (note.type === 'input') last = note;
    else done = note;
  });
  const watchdog = setInterval(() => {
    if (Date.now() - heard < SILENCE_MS) return;
    hung = true;
    child.kill('SIGKILL');
  }, 1000);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearInterval(watchdog);
  await rm(root, { recursive: true, force: true });
  if (done) {
    console.log(done.report);
    return done.findings === 0 ? 0 : 1;
  }
  const during = last ? `${last.category} #${last.index} (${last.recipe})` : 'start-up';
  const why = hung
    ? `no progress for ${SILENCE_MS / 1000} s`
    : `the fuzzing process died (${signal ?? `exit code ${code}`})`;
  console.log(
    `\nFINDING: ${why} during ${during}; make it again with --seed ${seed} --category ${last?.category ?? ''}`,
  );
  return 1;
}

/** The child: checks inputs, giving each category an equal share of the time, until time is up. */
async function fuzz(root: string): Promise<number> {
  const bases = loadBases();
  const findingsDir = join(tmpdir(), `rxstore-fuzz-findings-${seed}`);
  const workspace = new FuzzWorkspace(root);
  const streams = categories.map((category) => ({ category, inputs: fuzzInputs(category, bases, options), ms: 0 }));
  const tally = new FuzzTally();
  const started = Date.now();
  const deadline = started + seconds * 1000;
  let stop = false;
  process.on('SIGINT', () => (stop = true));
  collectGarbage();
  const baseline = retainedBytes();
  let nextProgress = started + PROGRESS_MS;
  while (!stop && Date.now() < deadline && streams.length > 0) {
    // Cheap categories get many inputs, costly ones few, each about the same time.
    const stream = streams.reduce((least, candidate) => (candidate.ms < least.ms ? candidate : least));
    const next = stream.inputs.next();
    if (next.done) {
      streams.splice(streams.indexOf(stream), 1);
      continue;
    }
    const input = next.value;
    send({ type: 'input', category: input.category, index: input.index, recipe: input.recipe });
    const result = await checkInput(input, workspace);
    stream.ms += result.ms;
    if (tally.add(input, result).length > 0) await save(input, findingsDir);
    if (Date.now() > nextProgress) {
      console.log(
        `  ${Math.round((Date.now() - started) / 1000)} s: ${tally.inputs} inputs, ${tally.findingCount} findings`,
      );
      nextProgress += PROGRESS_MS;
    }
  }
  collectGarbage();
  const grown = retainedBytes() - baseline;
  const leaked = grown > LIMITS.runGrowthBytes;
  const findings = tally.findingCount + (leaked ? 1 : 0);
  const report = [
    tally.format(),
    `heap and buffers grew ${Math.round(grown / 2 ** 20)} MiB over the run (bound ${LIMITS.runGrowthBytes / 2 ** 20} MiB)${leaked ? ': FINDING' : ''}`,
    ...(tally.findingCount > 0
      ? [`inputs of new findings saved in ${findingsDir}; check one again with --replay FILE`]
      : []),
    `seed ${seed}`,
  ].join('\n');
  send({ type: 'done', report, findings });
  return findings === 0 ? 0 : 1;
}

function send(note: Note): void {
  process.send!(note);
}

/** An input as JSON, file contents in base64: everything needed to check it again. */
async function save(input: FuzzInput, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = [...input.entries].map(([path, entry]) => [
    path,
    entry.kind === 'file' ? { kind: 'file', base64: entry.bytes.toString('base64') } : entry,
  ]);
  const saved = { ...input, seed, log: input.log?.toString('base64'), entries };
  await writeFile(join(dir, `${input.category}-${input.index}.json`), JSON.stringify(saved));
}

async function replay(file: string): Promise<number> {
  type SavedEntry = Exclude<Entry, { kind: 'file' }> | { kind: 'file'; base64: string };
  const saved = JSON.parse(await readFile(file, 'utf8')) as Omit<FuzzInput, 'entries' | 'log'> & {
    log?: string;
    entries: [string, SavedEntry][];
  };
  const input: FuzzInput = {
    ...saved,
    log: saved.log === undefined ? undefined : Buffer.from(saved.log, 'base64'),
    entries: new Map(
      saved.entries.map(([path, entry]): [string, Entry] => [
        path,
        entry.kind === 'file' ? { kind: 'file', bytes: Buffer.from(entry.base64, 'base64') } : entry,
      ]),
    ),
  };
  const root = await mkdtemp(join(tmpdir(), 'rxstore-fuzz-replay-'));
  try {
    const result = await checkInput(input, new FuzzWorkspace(root));
    console.log(`${input.category} #${input.index}: ${input.recipe}`);
    console.log(`codec: ${result.codec ?? '-'}; session: ${result.session ?? '-'}; ${Math.round(result.cpuMs)} ms CPU`);
    for (const finding of result.findings)
      console.log(`FINDING ${finding.kind} in ${finding.layer}: ${finding.detail}`);
    return result.findings.length === 0 ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
