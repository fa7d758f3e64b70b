import type { Argv } from 'yargs';
import { salvageSession } from '../../session/salvage-session.js';
import type { Output } from '../output.js';
import { v4SessionPath } from '../session-path.js';

interface SalvageArgs {
  dir: string;
  to?: string;
  dryRun: boolean;
  json: boolean;
}

export function salvageCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'salvage <dir>',
    describe: 'Write what can be read from a damaged session into a new session; the original is left untouched',
    builder: (yargs: Argv) =>
      yargs
        .positional('dir', { type: 'string', demandOption: true, describe: 'a (damaged) session directory' })
        .option('to', { type: 'string', describe: 'the sessions-v4 directory for the new session (default: the original’s store)' })
        .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' }),
    handler: async (args: SalvageArgs) => {
      const dir = await v4SessionPath(args.dir);
      const report = await salvageSession(dir, { to: args.to, dryRun: args.dryRun });
      if (args.json) output.out(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const verb = report.action === 'salvaged' ? 'salvaged into' : 'would salvage into';
        output.out(
          `${dir}: ${verb} ${report.newDir}: ${report.batchesKept} verified batches (${report.eventsKept} events)` +
            `${report.damage ? `, damage at ${report.damage.file ?? ''}${report.damage.offset !== undefined ? ` offset ${report.damage.offset}` : ''}: ${report.damage.message}` : ''}` +
            `, ${report.recoveredMessages} messages recovered past it\n`,
        );
      }
      setExit(0);
    },
  };
}
