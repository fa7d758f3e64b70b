// `npm run bench [-- <row>…]`: builds its inputs (reused across runs), times rxstore against
// references measured in the same run, prints a table and writes .bench/results/latest.json.
import { cpus } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { zstd } from '../src/codec/zstd/zstd.js';
import { coldRow } from './rows/cold.js';
import { incrementalRow } from './rows/incremental.js';
import { lsRow } from './rows/ls.js';
import { memoryRow } from './rows/memory.js';
import { migrateRow } from './rows/migrate.js';
import { reasonixRow } from './rows/reasonix.js';
import { relocateRow } from './rows/relocate.js';
import { scanRow } from './rows/scan.js';
import { searchRow } from './rows/search.js';
import { streamsRow } from './rows/streams.js';
import { zstdRow } from './rows/zstd.js';
import { buildCli } from './support/build-cli.js';
import { failed, seconds, type Figure } from './support/figure.js';
import { resultsFile, scratchDir } from './support/paths.js';
import { formatTable } from './support/table.js';

interface Row {
  run: () => Promise<Figure[]>;
  /** Rows that run the built CLI need `dist/` rebuilt first. */
  usesCli: boolean;
}

const ROWS: Record<string, Row> = {
  cold: { run: coldRow, usesCli: true },
  scan: { run: scanRow, usesCli: true },
  memory: { run: memoryRow, usesCli: true },
  reasonix: { run: reasonixRow, usesCli: true },
  incremental: { run: incrementalRow, usesCli: true },
  migrate: { run: migrateRow, usesCli: true },
  ls: { run: lsRow, usesCli: true },
  relocate: { run: relocateRow, usesCli: true },
  search: { run: searchRow, usesCli: true },
  streams: { run: streamsRow, usesCli: true },
  zstd: { run: zstdRow, usesCli: false },
};

async function main(): Promise<number> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !Object.hasOwn(ROWS, name));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown row ${unknown.join(', ')}; rows: ${Object.keys(ROWS).join(', ')}\n`);
    return 2;
  }
  const names = asked.length > 0 ? asked : Object.keys(ROWS);
  const started = performance.now();
  await mkdir(scratchDir, { recursive: true });

  const build = names.some((name) => ROWS[name]!.usesCli) ? await buildCli() : undefined;
  if (build && !build.ok)
    process.stderr.write(`bench: WARNING: the build failed; timing what tsc emitted.\n${build.message}\n`);

  const figures: Figure[] = [];
  const rowSeconds: Record<string, number> = {};
  for (const name of names) {
    const rowStarted = performance.now();
    process.stderr.write(`bench: ${name} …\n`);
    try {
      figures.push(...(await ROWS[name]!.run()));
    } catch (error) {
      // One broken row must not cost the others their figures.
      const message = error instanceof Error ? error.message : String(error);
      figures.push(failed(name, { error: message }));
      process.stderr.write(`bench: ${name} failed: ${message}\n`);
    }
    rowSeconds[name] = (performance.now() - rowStarted) / 1000;
    process.stderr.write(`bench: ${name} took ${seconds(rowSeconds[name])}\n`);
  }
  const wallSeconds = (performance.now() - started) / 1000;

  process.stdout.write(`\n${formatTable(figures)}\n\nwall time ${seconds(wallSeconds)} (${names.join(', ')})\n`);
  await mkdir(dirname(resultsFile), { recursive: true });
  const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, zstdBackend: zstd.name };
  await writeFile(
    resultsFile,
    `${JSON.stringify({ date: new Date().toISOString(), wallSeconds, rowSeconds, machine, build, figures }, null, 2)}\n`,
  );
  process.stdout.write(`figures written to ${resultsFile}\n`);
  return figures.some((figure) => figure.measure === 'failed') ? 1 : 0;
}

process.exitCode = await main();
