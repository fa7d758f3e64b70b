import type { Argv } from 'yargs';
import { salvageSession } from '../../session/writing/salvage-session.js';
import { isTranscriptPath, salvageTranscript, type TranscriptSalvageReport } from '../../migrate/salvage-transcript.js';
import { quote, reasonixResume } from '../../store/resume/shell-command.js';
import { epilogue } from '../help-text.js';
import type { Output } from '../output.js';
import { printable } from '../printable.js';
import type { RootArgs } from '../root-options.js';
import { resolveSessionArgument, withSessionArgument } from '../session-argument.js';
import { v4SessionPath } from '../session-path.js';

interface SalvageArgs extends RootArgs {
  session: string;
  to?: string;
  dryRun: boolean;
  json: boolean;
}

export function salvageCommand(output: Output, setExit: (code: number) => void) {
  return {
    command: 'salvage <session>',
    describe: 'Write what can be read from a damaged session or JSONL transcript into a new one; the original is left untouched',
    builder: (yargs: Argv) =>
      withSessionArgument(yargs, 'a (damaged) sessions-v4 session: its id or the start of one, or its directory; or a .jsonl transcript')
        .option('to', { type: 'string', describe: 'the sessions-v4 directory for the new session, or the folder for the new transcript (default: beside the original)' })
        .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; say what would be done' })
        .option('json', { type: 'boolean', default: false, describe: 'print a JSON report' })
        .example('$0 salvage 15350df4 --dry-run', 'how much would be kept, writing nothing')
        .example('$0 salvage 15350df4', 'a new session beside the original, which is left as it is')
        .epilogue(epilogue()),
    handler: async (args: SalvageArgs) => {
      if (isTranscriptPath(args.session)) {
        const report = await salvageTranscript(args.session, { to: args.to, dryRun: args.dryRun });
        output.out(args.json ? `${JSON.stringify(report, null, 2)}\n` : describeTranscriptSalvage(report));
        setExit(0);
        return;
      }
      const dir = await v4SessionPath(await resolveSessionArgument(args.session, args, { v4Only: true }));
      const report = await salvageSession(dir, { to: args.to, dryRun: args.dryRun });
      if (args.json) output.out(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const verb = { salvaged: 'salvaged into', 'would-salvage': 'would salvage into', 'already-salvaged': 'already salvaged into' }[report.action];
        output.out(
          printable(
            `${dir}: ${verb} ${report.newDir}: ${report.batchesKept} verified batches (${report.eventsKept} events)` +
              `${report.damage ? `, damage at ${report.damage.data.file ?? ''}${report.damage.data.offset !== undefined ? ` offset ${report.damage.data.offset}` : ''}: ${report.damage.message}` : ''}` +
              `, ${report.recoveredMessages} messages recovered past it`,
          ) + '\n',
        );
      }
      setExit(0);
    },
  };
}

function describeTranscriptSalvage(report: TranscriptSalvageReport): string {
  const verb = report.action === 'salvaged' ? 'salvaged into' : 'would salvage into';
  const lines = [`${report.source}: ${verb} ${report.newPath}: ${report.linesKept} messages kept, ${report.dropped.length} ${report.dropped.length === 1 ? 'line' : 'lines'} left out`];
  if (report.byteOrderMarkRemoved) lines.push('  the byte-order mark at its start was left out');
  for (const dropped of report.dropped) lines.push(`  ${dropped.reason}`);
  const platform = process.platform === 'win32' ? 'win32' : 'linux';
  lines.push(`  resume it with: ${reasonixResume(report.newPath, platform)}   (or migrate it: rxstore migrate jsonl-to-v4 ${quote(report.newPath, platform)})`);
  return `${lines.join('\n')}\n`;
}
