import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appendBatches, openSession, search, type SearchOptions } from '../../src/index.js';
import { runChild, runChildOk } from '../support/child.js';
import { seconds, skipped, times, verdict, type Figure } from '../support/figure.js';
import { peakRssMiB, peakRssUnavailable } from '../support/peak-rss.js';
import { rxstoreBin, scratchDir } from '../support/paths.js';
import { benchSession, benchStore } from '../support/sessions.js';
import { messageId } from '../support/text.js';
import { seededRandom } from '../../test/support/seeded-random.js';
import { benchStateRoot, stateRootEnv } from '../support/state-root.js';
import { median, timeRuns, timeTogether, type Timing } from '../support/timing.js';

/** `BENCH_SEARCH_SESSIONS` searches fewer, to try the row out; the figures are for the 2,000-session bench state. */
const SESSIONS = Number(process.env.BENCH_SEARCH_SESSIONS ?? 2000);
/** A word of the bench text's prose and comments, and a phrase of it. */
const QUERIES = ['invisible', '"torn tail"'];
/**
 * Timed in process beside the common word (in 37 % of the 2,000 sessions' texts): an identifier of the bench
 * text's code in 40 of their 21,196 texts, as a search for one function looks.
 */
const RARE_QUERY = 'servertoken';
const MiB = 1024 * 1024;

const p95 = (runs: readonly number[]) =>
  [...runs].sort((a, b) => a - b)[Math.min(runs.length - 1, Math.floor(runs.length * 0.95))]!;

/**
 * `rxstore search` over the bench state (2,000 sessions of 20–100 KB of records), then over one
 * session of 1 GiB (`largeSessionFigures`): the index built
 * from nothing against a cold `ls --no-cache`; a warm search in process and as a CLI run against a
 * warm `ls` and against `rg` over the same text exported as JSONL; a re-index after one appended
 * batch against a warm `ls`; the index's size against the text's; the build's peak RSS; and the same
 * text put into an FTS5 table by the `sqlite3` command line (what the index itself costs).
 */
export async function searchRow(): Promise<Figure[]> {
  const help = await runChild(process.execPath, [rxstoreBin, 'search', '--help'], { keepStdout: true });
  if (help.code !== 0)
    return [
      skipped(
        'search',
        `rxstore search, ${SESSIONS} sessions`,
        `rxstore search is not built yet: \`rxstore search --help\` exited ${help.code}`,
      ),
    ];
  const { stateRoot } = await benchStateRoot(SESSIONS);
  const work = await mkdtemp(join(scratchDir, 'search-'));
  const figures: Figure[] = [];
  try {
    const cli = rxstoreRun(stateRoot);
    const figure = (
      measure: string,
      ours: string,
      reference: string,
      ratio: number,
      target: number | undefined,
      data: Record<string, unknown>,
    ): Figure => ({
      row: 'search',
      measure,
      rxstore: ours,
      reference,
      ratio: `${times(ratio)} its time`,
      target: target === undefined ? '—' : `≤ ${target}× its time`,
      verdict: target === undefined ? 'info' : verdict(ratio <= target),
      data: { sessions: SESSIONS, ...data },
    });

    // Build from nothing, against a cold listing that reads every log whole.
    const buildCache = join(work, 'built');
    const { coldLs, build, rss, rssReason } = await buildAgainstColdLs(stateRoot, join(work, 'ls-cold'), buildCache);
    figures.push(
      figure(
        `index build, ${SESSIONS} sessions (first search)`,
        seconds(build.median),
        `${seconds(coldLs.median)} (rxstore ls --no-cache)`,
        build.median / coldLs.median,
        2,
        { buildRuns: build.runs, lsRuns: coldLs.runs },
      ),
    );

    // Warm: the index up to date, against a warm `ls` (its summary cache filled first) and rg over the same text.
    const lsCache = join(work, 'ls-warm');
    await cli(lsCache, ['ls', '--json'])();
    const exported = join(work, 'text.jsonl');
    const textBytes = await exportText(stateRoot, exported);
    const rg = existsSync('/usr/bin/rg')
      ? async () => runChild('/usr/bin/rg', ['-c', '-i', 'invisible', exported])
      : undefined;
    const things: Record<string, () => Promise<unknown>> = {
      ls: cli(lsCache, ['ls', '--json']),
      search: cli(buildCache, ['search', QUERIES[0]!, '--json']),
      phrase: cli(buildCache, ['search', QUERIES[1]!, '--json']),
      grouped: cli(buildCache, ['search', QUERIES[0]!]),
    };
    if (rg) things.rg = rg;
    // Rounds stop at 5 once two minutes are spent (2,000 sessions: some seconds a round).
    const timed = (await timeTogether({ runs: 11, minRuns: 5, budgetSeconds: 120, warmup: 1 }, things)) as Record<
      'ls' | 'search' | 'phrase' | 'grouped',
      Timing
    > & { rg?: Timing };
    const lsReference = `${seconds(timed.ls.median)} (rxstore ls, warm cache)`;
    for (const [name, query] of [
      ['search', QUERIES[0]!],
      ['phrase', QUERIES[1]!],
    ] as const) {
      const ours = timed[name];
      figures.push(
        figure(
          `CLI warm search ${query}, median (p95 ${seconds(p95(ours.runs))})`,
          seconds(ours.median),
          lsReference,
          ours.median / timed.ls.median,
          1.5,
          { runs: ours.runs, lsRuns: timed.ls.runs },
        ),
      );
      const rgTiming = timed.rg;
      if (rgTiming)
        figures.push(
          figure(
            `CLI warm search ${query} against rg over the text as JSONL`,
            seconds(ours.median),
            `${seconds(rgTiming.median)} (rg -c -i, ${(textBytes / MiB).toFixed(1)} MiB)`,
            ours.median / rgTiming.median,
            undefined,
            { rgRuns: rgTiming.runs },
          ),
        );
    }
    // As a person reads it, grouped by session: no message index, so no transcript is read.
    figures.push(
      figure(
        `CLI warm search ${QUERIES[0]!} grouped (no --json), median (p95 ${seconds(p95(timed.grouped.runs))})`,
        seconds(timed.grouped.median),
        lsReference,
        timed.grouped.median / timed.ls.median,
        1.5,
        { runs: timed.grouped.runs },
      ),
    );
    const storeRoots = (await readdir(join(stateRoot, 'projects'))).map((slug) => ({
      kind: 'store' as const,
      path: join(stateRoot, 'projects', slug, 'sessions-v4'),
    }));
    for (const query of [QUERIES[0]!, RARE_QUERY]) {
      const warm = await inProcessSearch(query, storeRoots, join(buildCache, 'rxstore'));
      figures.push(
        figure(
          `in-process warm search ${query}, median (p95 ${seconds(p95(warm.runs))})`,
          seconds(warm.median),
          '5 ms (the goal)',
          warm.median / 0.005,
          1,
          { runs: warm.runs },
        ),
      );
      figures.push(await nativeQueryFigure(join(buildCache, 'rxstore'), query, warm, work));
    }

    // One batch appended to one session: the next search reads it and nothing else.
    const first = join(stateRoot, 'projects', (await readdir(join(stateRoot, 'projects')))[0]!, 'sessions-v4');
    const session = join(first, (await readdir(first)).find((name) => !name.startsWith('.'))!);
    const updates: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      await appendMessage(session, `bench-search-${run}`);
      updates.push((await timeRuns({ runs: 1 }, cli(buildCache, ['search', QUERIES[0]!, '--json']))).median);
    }
    figures.push(
      figure(
        're-index after one appended batch (CLI search)',
        seconds(median(updates)),
        lsReference,
        median(updates) / timed.ls.median,
        2,
        { runs: updates },
      ),
    );

    // Sizes and memory.
    const indexBytes = (await stat(join(buildCache, 'rxstore', 'search-index.sqlite'))).size;
    figures.push(
      figure(
        'index size against the text it holds',
        `${(indexBytes / MiB).toFixed(1)} MiB`,
        `${(textBytes / MiB).toFixed(1)} MiB of text as JSONL`,
        indexBytes / textBytes,
        undefined,
        { indexBytes, textBytes },
      ),
    );
    if (rss === undefined) figures.push(skipped('search', 'peak RSS of the index build', rssReason ?? 'not measured'));
    else {
      figures.push(
        figure('peak RSS of the index build', `${rss.toFixed(0)} MiB`, '256 MiB (the goal)', rss / 256, 1, {
          peakRssMiB: rss,
        }),
      );
    }
    figures.push(await sqliteReference(exported, work, build.median));
    figures.push(...(await largeSessionFigures(work)));
    return figures;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `BENCH_SEARCH_LARGE_MIB` searches a smaller single session, to try the row out; the figures are for 1 GiB. */
const LARGE_MIB = Number(process.env.BENCH_SEARCH_LARGE_MIB ?? 1024);

/**
 * The same figures on one session of 1 GiB of records: its index built from nothing against a cold
 * `ls --no-cache` (which reads the log whole), the build's peak RSS, a warm search in process and as a
 * CLI run against a warm `ls`, and a re-index after one appended batch. The session is copied first:
 * the batch appended must not change the cached input.
 */
async function largeSessionFigures(work: string): Promise<Figure[]> {
  const session = await benchSession(LARGE_MIB);
  const stateRoot = join(work, 'large-state');
  await cp(session.stateRoot, stateRoot, {
    recursive: true,
    filter: (source) => !source.endsWith('.bench-input.json'),
  });
  const dir = join(benchStore(stateRoot), session.id);
  const cli = rxstoreRun(stateRoot);
  const what = `one session of ${LARGE_MIB} MiB`;
  const figure = (measure: string, ours: number, reference: number, referenceIs: string, target: number): Figure => ({
    row: 'search',
    measure: `${measure}, ${what}`,
    rxstore: seconds(ours),
    reference: `${seconds(reference)} (${referenceIs})`,
    ratio: `${times(ours / reference)} its time`,
    target: `≤ ${target}× its time`,
    verdict: verdict(ours / reference <= target),
    data: { rawMiB: LARGE_MIB },
  });
  const buildCache = join(work, 'large-built');
  const { coldLs, build, rss, rssReason } = await buildAgainstColdLs(
    stateRoot,
    join(work, 'large-ls-cold'),
    buildCache,
  );
  const figures = [figure('index build (first search)', build.median, coldLs.median, 'rxstore ls --no-cache', 2)];
  figures.push(
    rss === undefined
      ? skipped('search', `peak RSS of the index build, ${what}`, rssReason ?? 'not measured')
      : {
          row: 'search',
          measure: `peak RSS of the index build, ${what}`,
          rxstore: `${rss.toFixed(0)} MiB`,
          reference: '256 MiB (the goal)',
          ratio: `${times(rss / 256)} it`,
          target: '≤ 1× it',
          verdict: verdict(rss < 256),
          data: { peakRssMiB: rss },
        },
  );
  const lsCache = join(work, 'large-ls-warm');
  await cli(lsCache, ['ls', '--json'])();
  const timed = await timeTogether(
    { runs: 11, minRuns: 5, budgetSeconds: 60, warmup: 1 },
    { ls: cli(lsCache, ['ls', '--json']), search: cli(buildCache, ['search', QUERIES[0]!, '--json']) },
  );
  figures.push(
    figure(
      `CLI warm search ${QUERIES[0]!}, median (p95 ${seconds(p95(timed.search!.runs))})`,
      timed.search!.median,
      timed.ls!.median,
      'rxstore ls, warm cache',
      1.5,
    ),
  );
  const roots = [{ kind: 'store' as const, path: benchStore(stateRoot) }];
  for (const query of [QUERIES[0]!, RARE_QUERY]) {
    const warm = await inProcessSearch(query, roots, join(buildCache, 'rxstore'));
    figures.push({
      row: 'search',
      measure: `in-process warm search ${query}, median (p95 ${seconds(p95(warm.runs))}), ${what}`,
      rxstore: seconds(warm.median),
      reference: '5 ms (the goal)',
      ratio: `${times(warm.median / 0.005)} it`,
      target: '≤ 1× it',
      verdict: verdict(warm.median <= 0.005),
      data: { runs: warm.runs },
    });
    figures.push(await nativeQueryFigure(join(buildCache, 'rxstore'), query, warm, work, `, ${what}`));
  }
  // Two runs, each after a batch appended: the index reads only that batch, from its cursor.
  const updates: number[] = [];
  for (let run = 0; run < 2; run += 1) {
    await appendMessage(dir, `bench-search-large-${run}`);
    updates.push((await timeRuns({ runs: 1 }, cli(buildCache, ['search', QUERIES[0]!, '--json']))).median);
  }
  figures.push(
    figure(
      're-index after one appended batch (CLI search)',
      median(updates),
      timed.ls!.median,
      'rxstore ls, warm cache',
      2,
    ),
  );
  return figures;
}

/** Every text a search holds, one JSON line each (what `rg` searches, and `sqlite3` loads): the bytes of text the index stands for. */
async function exportText(stateRoot: string, file: string): Promise<number> {
  const lines: string[] = [];
  const texts: string[] = [];
  for (const slug of await readdir(join(stateRoot, 'projects'))) {
    const store = join(stateRoot, 'projects', slug, 'sessions-v4');
    for (const id of (await readdir(store)).filter((name) => !name.startsWith('.'))) {
      for await (const record of (await openSession(join(store, id))).records()) {
        const said =
          record.type === 'message'
            ? [record.text]
            : record.type === 'command'
              ? [record.command, record.output]
              : record.type === 'call'
                ? [record.arguments, record.output]
                : record.type === 'result'
                  ? [record.output]
                  : [record.path, record.arguments, record.output];
        for (const text of said) {
          if (text === '') continue;
          lines.push(JSON.stringify({ session: id, key: record.key, text }));
          texts.push(text);
        }
      }
    }
  }
  const body = `${lines.join('\n')}\n`;
  await writeFile(file, body);
  // For sqlite3's .import in ascii mode: records end with 0x1e (no text of the bench holds one).
  await writeFile(`${file}.ascii`, texts.map((text) => `${text}\u001e`).join(''));
  return Buffer.byteLength(body);
}

const SQLITE3_MISSING = '/usr/bin/sqlite3 is not installed (apt-get install sqlite3)';

/** The same text put into an FTS5 table (trigram) by the sqlite3 command line: what an index of it costs at least. */
async function sqliteReference(exported: string, work: string, buildSeconds: number): Promise<Figure> {
  if (!existsSync('/usr/bin/sqlite3'))
    return skipped('search', 'sqlite3 CLI: the same text into FTS5', SQLITE3_MISSING);
  const db = join(work, 'reference.sqlite');
  const script = join(work, 'reference.sql');
  await writeFile(
    script,
    [
      "create virtual table t using fts5(text, tokenize = 'trigram');",
      '.mode ascii',
      `.import '${exported.replaceAll("'", "''")}.ascii' t`,
      'select count(*) from t;',
    ].join('\n') + '\n',
  );
  const started = performance.now();
  await runChildOk('/usr/bin/sqlite3', ['-batch', db, `.read ${script}`]);
  const took = (performance.now() - started) / 1000;
  const size = (await stat(db)).size;
  return {
    row: 'search',
    measure: 'index build against sqlite3 CLI loading the same text into FTS5 (trigram)',
    rxstore: seconds(buildSeconds),
    reference: `${seconds(took)} (sqlite3, ${(size / MiB).toFixed(1)} MiB)`,
    ratio: `${times(buildSeconds / took)} its time`,
    target: '—',
    verdict: 'info',
    data: { sqliteSeconds: took, sqliteBytes: size },
  };
}

/** Queries a timed sqlite3 run makes, after three untimed ones that read the index's pages into the page cache. */
const NATIVE_QUERIES = 50;

/**
 * The FTS5 part of a warm search of `query` (a word: the index narrows by it whole), run natively by the sqlite3
 * command line on the index the search reads: its match, ranked by bm25, the first 20. What SQLite itself costs
 * for it, whatever runs it. sqlite3's own timer counts whole milliseconds: a run of three queries is timed against
 * one of `NATIVE_QUERIES` more, and the difference shared among those (their process start cancelled out).
 */
async function nativeQueryFigure(
  cacheDir: string,
  query: string,
  warm: Timing,
  work: string,
  what = '',
): Promise<Figure> {
  const measure = `in-process warm search ${query} against its FTS5 query alone, by the sqlite3 CLI on the same index${what}`;
  if (!existsSync('/usr/bin/sqlite3')) return skipped('search', measure, SQLITE3_MISSING);
  const index = join(cacheDir, 'search-index.sqlite');
  const phrase = `'"${query.replaceAll('"', '').replaceAll("'", "''")}"'`;
  const statement = `select rowid, -bm25(docs_text) from docs_text where docs_text match ${phrase} order by 2 desc limit 20;`;
  const scriptOf = async (name: string, queries: number) => {
    const script = join(work, name);
    await writeFile(script, `${Array.from({ length: queries }, () => statement).join('\n')}\n`);
    return async () => {
      const run = await runChild('/usr/bin/sqlite3', ['-batch', '-readonly', index, `.read ${script}`]);
      if (run.code !== 0) throw new Error(`sqlite3 failed on the index (exit ${run.code}): ${run.stderr}`);
    };
  };
  const timed = await timeTogether(
    { runs: 5 },
    { few: await scriptOf('native-few.sql', 3), many: await scriptOf('native-many.sql', 3 + NATIVE_QUERIES) },
  );
  const each = Math.max(0, timed.many.median - timed.few.median) / NATIVE_QUERIES;
  return {
    row: 'search',
    measure,
    rxstore: seconds(warm.median),
    reference: `${seconds(each)} (sqlite3: match, bm25, first 20)`,
    ratio: `${times(warm.median / each)} its time`,
    target: '—',
    verdict: 'info',
    data: { sqliteFewRuns: timed.few.runs, sqliteManyRuns: timed.many.runs, queries: NATIVE_QUERIES },
  };
}

/** Runs `rxstore <args>` over the state root with its cache in `cacheHome`; a search that finds nothing (exit 1) is no failure. */
function rxstoreRun(stateRoot: string) {
  return (cacheHome: string, args: string[]) => async () => {
    const run = await runChild(process.execPath, [rxstoreBin, ...args], {
      env: stateRootEnv(stateRoot, cacheHome),
      keepStdout: true,
    });
    if (run.code !== 0 && !(args[0] === 'search' && run.code === 1))
      throw new Error(
        `rxstore ${args.join(' ')} exited ${run.code}: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
  };
}

/** Appends one batch of one user message to the session, as Reasonix appends a turn's first. */
async function appendMessage(dir: string, tag: string): Promise<void> {
  const now = String(Date.now());
  await appendBatches(
    dir,
    [
      {
        operationId: `${tag}-${now}`,
        events: [
          {
            kind: 'message/complete',
            payload: {
              message: {
                role: 'user',
                // A ULID of now, as Reasonix makes one: after every id the session holds (written earlier).
                id: messageId(seededRandom(Number(now)), Number(now)),
                origin: 'user',
                content: `appended ${tag}`,
              },
            },
          },
        ],
      },
    ],
    { validate: false },
  );
}

/**
 * A cold `ls --no-cache` of the state root, then the index built from nothing by a first search, its
 * peak RSS from the same run (GNU time wraps it, at the cost of a fork: a second build would take minutes).
 */
async function buildAgainstColdLs(stateRoot: string, lsCache: string, buildCache: string) {
  const cli = rxstoreRun(stateRoot);
  const coldLs = await timeRuns({ runs: 1 }, cli(lsCache, ['ls', '--no-cache', '--json']));
  const buildArgs = [rxstoreBin, 'search', QUERIES[0]!, '--json', '--limit', '1'];
  const rssReason = peakRssUnavailable();
  let rss: number | undefined;
  const build = await timeRuns({ runs: 1 }, async () => {
    if (rssReason) await cli(buildCache, buildArgs.slice(1))();
    else rss = await peakRssMiB(process.execPath, buildArgs, { env: stateRootEnv(stateRoot, buildCache) });
  });
  return { coldLs, build, rss, rssReason };
}

/**
 * A warm search of `query` in this process, the first 20 hits, as a program using the library runs it
 * again and again: the median is of runs after the first three (the third on watches the files rather than
 * stat them, where it can).
 */
function inProcessSearch(query: string, roots: SearchOptions['roots'], cacheDir: string): Promise<Timing> {
  return timeRuns({ runs: 21, minRuns: 7, budgetSeconds: 20, warmup: 3 }, async () => {
    for await (const hit of search(query, { roots, platform: 'linux', cacheDir, limit: 20 })) void hit;
  });
}
