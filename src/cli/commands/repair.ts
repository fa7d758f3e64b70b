import type { Argv } from 'yargs';
import { readSession } from '../../session/read-session.js';
import { repairSession } from '../../session/repair-session.js';
import type { Output } from '../output.js';
import { v4SessionPath } from '../session-path.js';
import { UsageError } from '../usage-error.js';

interface RepairArgs {
  dir: string;
  dryRun: boolean;
  json: boolean;
}

export function repairCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'repair <dir>',
    describe: "Cut a torn tail off a session's log as Reasonix would, keeping the cut bytes as evidence",
    builder: (yargs: Argv) =>
      yargs
        .positional('dir', { type: 'string', demandOption: true, describe: 'a session directory' })
        .option('dry-run', { type: 'boolean', default: false, describe: 'change nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
        .epilogue('Only a torn tail is repaired in place. A damaged log is never edited: use rxstore salvage.'),
    handler: async (args: RepairArgs) => {
      const dir = await v4SessionPath(args.dir);
      const read = await readSession(dir);
      if (read.status === 'damaged' || read.status === 'unsupported') {
        const problem = read.problems.find((found) => found.severity === 'error');
        throw new UsageError(`${dir} is ${read.status}, not torn (${problem?.message ?? ''}); rxstore repair only cuts torn tails — use rxstore salvage ${dir}`);
      }
      const report = await repairSession(dir, { dryRun: args.dryRun });
      if (args.json) output.out(`${JSON.stringify(report, null, 2)}\n`);
      else if (report.action === 'nothing-to-repair') output.out(`${dir}: no torn tail; nothing to repair\n`);
      else {
        const tail = report.tornTail!;
        const verb = report.action === 'repaired' ? 'cut' : 'would cut';
        output.out(`${dir}: ${verb} ${tail.bytes} torn bytes at offset ${tail.offset}${report.evidence ? `, kept in ${report.evidence}` : ''}\n`);
      }
      setExit(0);
    },
  };
}
