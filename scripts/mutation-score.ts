// The mutation score of the parts run one at a time (`npm run mutate:part`), put together:
//
//   npm run mutate:score -- [--any] <report.json>[!<file>,<file>…] …
//
// Reports are read in the order given, and a mutant's latest run wins (a part run again after tests were
// written for it); with `--any`, a mutant is detected when any run of the same code detected it (parts of
// one layer judged by different test sets of the suite). `!` leaves files out of the report before it: files changed since it ran, whose mutants a
// later report holds. A score counts killed and timed-out mutants against every mutant the runner ran or found
// without coverage; one it ignored as static, or that did not compile or run, is not counted. Prints a line a
// top folder (`src/codec`, `src/session/<part>`), then one a layer.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const ReportSchema = z.object({
  files: z.record(
    z.string(),
    z.object({
      mutants: z.array(
        z.object({
          mutatorName: z.string(),
          replacement: z.string().optional(),
          status: z.string(),
          location: z.object({
            start: z.object({ line: z.number(), column: z.number() }),
            end: z.object({ line: z.number(), column: z.number() }),
          }),
        }),
      ),
    }),
  ),
});

const NOT_COUNTED = new Set(['Ignored', 'CompileError', 'RuntimeError']);
const DETECTED = new Set(['Killed', 'Timeout']);

const any = process.argv.includes('--any');
const args = process.argv.slice(2).filter((arg) => arg !== '--any');
if (args.length === 0) {
  process.stderr.write('usage: npm run mutate:score -- [--any] <report.json>[!<file>,<file>…] …\n');
  process.exit(2);
}
const latest = new Map<string, { file: string; status: string }>();
for (const arg of args) {
  const [path = '', left = ''] = arg.split('!');
  const leftOut = new Set(left.split(',').filter(Boolean));
  const parsed = ReportSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) {
    process.stderr.write(`${path}: not a Stryker JSON report (${parsed.error.issues[0]?.message ?? 'invalid'})\n`);
    process.exit(1);
  }
  for (const [file, { mutants }] of Object.entries(parsed.data.files)) {
    if (leftOut.has(file)) continue;
    for (const {
      location: { start, end },
      mutatorName,
      replacement,
      status,
    } of mutants) {
      const key = `${file}|${start.line}:${start.column}-${end.line}:${end.column}|${mutatorName}|${replacement ?? ''}`;
      if (any && DETECTED.has(latest.get(key)?.status ?? '')) continue;
      latest.set(key, { file, status });
    }
  }
}

/** The folders a file's mutant counts in: its part (`src/session/reading`) and its layer (`src/session`). */
const groupsOf = (file: string) => {
  const parts = file.split('/');
  return parts[1] === 'session'
    ? [parts.slice(0, 3).join('/'), parts.slice(0, 2).join('/')]
    : [parts.slice(0, 2).join('/')];
};
const tally = new Map<string, { counted: number; killed: number; timedOut: number }>();
for (const { file, status } of latest.values()) {
  if (NOT_COUNTED.has(status)) continue;
  for (const group of groupsOf(file)) {
    const counts = tally.get(group) ?? { counted: 0, killed: 0, timedOut: 0 };
    counts.counted += 1;
    if (status === 'Killed') counts.killed += 1;
    if (status === 'Timeout') counts.timedOut += 1;
    tally.set(group, counts);
  }
}
for (const [group, { counted, killed, timedOut }] of [...tally].sort(([a], [b]) => a.localeCompare(b))) {
  const detected = killed + timedOut;
  process.stdout.write(
    `${group}: ${detected} of ${counted} detected (${killed} killed, ${timedOut} timed out), ${((100 * detected) / counted).toFixed(1)} %\n`,
  );
}
