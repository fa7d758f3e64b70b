import { EXIT, type ExitCode } from '../exit-codes.js';
import { jsonOutput } from '../json-output.js';
import { printable, repairSession, resolveSession } from '../../index.js';
import type { Output } from '../output.js';
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
export async function runRepair(args: RepairArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  const dir = await v4SessionPath(await resolveSession(args.session, { ...args, v4Only: true }));
  // The library reads the session once (under Reasonix's locks) and refuses what a repair does not mend.
  const report = await repairSession(dir, { dryRun: args.dryRun });
  const shown = printable(dir);
  // What the caches' refusals were decides the words below; the report as printed is as it was.
  const { cacheCodes, ...shownReport } = report;
  if (args.json) output.out(`${jsonOutput(shownReport, 2)}\n`);
  else if (report.action === 'nothing-to-repair') output.out(`${shown}: no torn tail; nothing to repair\n`);
  else if (!report.tornTail) {
    const verb = report.action === 'repaired' ? 'removed' : 'would remove';
    const why = cacheCodes?.includes('RX_QUERY_CACHE_BLOCKED')
      ? 'one of whose files Reasonix would wait on forever'
      : cacheCodes?.includes('RX_RECOVERY_CACHE_DAMAGED')
        ? 'whose recovery checkpoint is damaged'
        : 'whose recovery cache held more of the session than the log';
    output.out(`${shown}: ${verb} Reasonix's caches of the session, ${why} (Reasonix rebuilds them from the log)\n`);
  } else {
    const tail = report.tornTail!;
    const verb = report.action === 'repaired' ? 'cut' : 'would cut';
    output.out(
      `${shown}: ${verb} ${counted(tail.bytes, 'torn byte')} at offset ${tail.offset}${report.evidence ? `, kept in ${printable(report.evidence)}` : ''}\n`,
    );
  }
  setExit(EXIT.done);
}
