import type { Argv } from 'yargs';
import { DamagedStoreError, UnsupportedVersionError } from '../../errors/index.js';
import { readSession, reasonixRefuses } from '../../session/reading/read-session.js';
import { repairSession } from '../../session/writing/repair-session.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import { printable } from '../printable.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument, withSessionArgument } from '../session-argument.js';
import { v4SessionPath } from '../session-path.js';

interface RepairArgs extends RootArgs {
  session: string;
  dryRun: boolean;
  json: boolean;
}

export function repairCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'repair <session>',
    describe: "Cut a torn tail off a session's log as Reasonix would, keeping the cut bytes as evidence",
    builder: (yargs: Argv) =>
      withSessionArgument(yargs, 'a sessions-v4 session: its id or the start of one, or its directory')
        .option('dry-run', { type: 'boolean', default: false, describe: 'change nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
        .example('$0 repair 15350df4 --dry-run', 'what would be cut, changing nothing')
        .example('$0 repair ~/.reasonix/projects/-home-me-app/sessions-v4/15350df4…', 'a session by its directory')
        .epilogue(
          epilogue(
            'Only a torn tail is repaired in place, under Reasonix\'s own writer locks (refused while a Reasonix holds them). A damaged log is never edited (exit 1): use rxstore salvage.',
          ),
        ),
    handler: async (args: RepairArgs) => {
      const dir = await v4SessionPath(await resolveSessionArgument(args.session, args, { v4Only: true }));
      const read = await readSession(dir);
      if (reasonixRefuses(read.status)) {
        const problem = read.problems.find((found) => found.severity === 'error');
        const message = `the session is ${read.status}, not torn (${problem?.message ?? read.status}); rxstore repair only cuts torn tails — use rxstore salvage ${dir}`;
        const data = { file: problem?.data.file ?? dir, ...(problem?.data.offset !== undefined ? { offset: problem.data.offset } : {}) };
        throw read.status === 'unsupported' ? new UnsupportedVersionError(message, data) : new DamagedStoreError(message, data);
      }
      const report = await repairSession(dir, { dryRun: args.dryRun });
      const shown = printable(dir);
      if (args.json) output.out(`${JSON.stringify(report, null, 2)}\n`);
      else if (report.action === 'nothing-to-repair') output.out(`${shown}: no torn tail; nothing to repair\n`);
      else {
        const tail = report.tornTail!;
        const verb = report.action === 'repaired' ? 'cut' : 'would cut';
        output.out(`${shown}: ${verb} ${tail.bytes} torn bytes at offset ${tail.offset}${report.evidence ? `, kept in ${printable(report.evidence)}` : ''}\n`);
      }
      setExit(0);
    },
  };
}
