import { jsonOutput } from '../json-output.js';
import { DamagedStoreError, errorFromProblem, UnsupportedVersionError } from '../../errors/index.js';
import { readSession, reasonixRefuses } from '../../session/reading/read-session.js';
import { CACHE_REFUSALS } from '../../session/reading/recovery-cache.js';
import { repairSession } from '../../session/writing/repair-session.js';
import type { Output } from '../output.js';
import { printable } from '../../index.js';
import { resolveSessionArgument } from '../session-argument.js';
import { v4SessionPath } from '../session-path.js';
import type { RootArgs } from '../root-options.js';
import { counted } from '../plural.js';

/** What `rxstore repair` is run with: the options repair.ts declares, as yargs gives them. */
export interface RepairArgs extends RootArgs {
  session: string;
  dryRun: boolean;
  json: boolean;
}

/** `rxstore repair`, run: the command's options are in repair.ts. */
export async function runRepair(args: RepairArgs, output: Output, setExit: (code: number) => void): Promise<void> {
  const dir = await v4SessionPath(await resolveSessionArgument(args.session, args, { v4Only: true }));
  const read = await readSession(dir);
  // A recovery cache ahead of the log or damaged is what repair clears; any other refusal is damage to salvage.
  const errors = read.problems.filter((found) => found.severity === 'error');
  if (reasonixRefuses(read.status) && !errors.every((found) => CACHE_REFUSALS.has(found.code))) {
    const problem = errors.find((found) => !CACHE_REFUSALS.has(found.code));
    // A file Reasonix cannot use, beside a sound log: neither a cut nor salvage helps, and its refusal says what does.
    if (problem?.code === 'RX_BLOCKED_FILE') throw errorFromProblem({ ...problem, message: `${problem.message}; rxstore repair changes only a torn tail and Reasonix's caches, and leaves it` });
    const message = `the session is ${read.status}, not torn (${problem?.message ?? read.status}); rxstore repair only cuts torn tails — use rxstore salvage ${dir}`;
    const data = { file: problem?.data.file ?? dir, ...(problem?.data.offset !== undefined ? { offset: problem.data.offset } : {}) };
    throw read.status === 'unsupported' ? new UnsupportedVersionError(message, data) : new DamagedStoreError(message, data);
  }
  const report = await repairSession(dir, { dryRun: args.dryRun });
  const shown = printable(dir);
  if (args.json) output.out(`${jsonOutput(report, 2)}\n`);
  else if (report.action === 'nothing-to-repair') output.out(`${shown}: no torn tail; nothing to repair\n`);
  else if (!report.tornTail) {
    const verb = report.action === 'repaired' ? 'removed' : 'would remove';
    const why = errors.some((found) => found.code === 'RX_QUERY_CACHE_BLOCKED')
      ? 'one of whose files Reasonix would wait on forever'
      : errors.some((found) => found.code === 'RX_RECOVERY_CACHE_DAMAGED')
        ? 'whose recovery checkpoint is damaged'
        : 'whose recovery cache held more of the session than the log';
    output.out(`${shown}: ${verb} Reasonix's caches of the session, ${why} (Reasonix rebuilds them from the log)\n`);
  } else {
    const tail = report.tornTail!;
    const verb = report.action === 'repaired' ? 'cut' : 'would cut';
    output.out(`${shown}: ${verb} ${counted(tail.bytes, 'torn byte')} at offset ${tail.offset}${report.evidence ? `, kept in ${printable(report.evidence)}` : ''}\n`);
  }
  setExit(0);
}
