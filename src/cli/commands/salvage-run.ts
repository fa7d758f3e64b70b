import { jsonOutput } from '../json-output.js';
import { salvageSession, type SalvageReport } from '../../session/writing/salvage-session.js';
import { isTranscriptPath, salvageTranscript, type TranscriptSalvageReport } from '../../migrate/salvage-transcript.js';
import { quote, reasonixResume } from '../../store/resume/shell-command.js';
import type { Output } from '../output.js';
import { printable } from '../printable.js';
import { resolveSessionArgument } from '../session-argument.js';
import { v4SessionPath } from '../session-path.js';
import type { RootArgs } from '../root-options.js';

/** What `rxstore salvage` is run with: the options salvage.ts declares, as yargs gives them. */
export interface SalvageArgs extends RootArgs {
  session: string;
  to?: string;
  dryRun: boolean;
  json: boolean;
}

/** `rxstore salvage`, run: the command's options are in salvage.ts. */
export async function runSalvage(args: SalvageArgs, output: Output, setExit: (code: number) => void): Promise<void> {
  if (isTranscriptPath(args.session)) {
    const report = await salvageTranscript(args.session, { to: args.to, dryRun: args.dryRun });
    output.out(args.json ? `${jsonOutput(report, 2)}\n` : describeTranscriptSalvage(report));
    setExit(0);
    return;
  }
  const dir = await v4SessionPath(await resolveSessionArgument(args.session, args, { v4Only: true }));
  const report = await salvageSession(dir, { to: args.to, dryRun: args.dryRun });
  if (args.json) output.out(`${jsonOutput(report, 2)}\n`);
  else {
    const verb = { salvaged: 'salvaged into', 'would-salvage': 'would salvage into', 'already-salvaged': 'already salvaged into' }[report.action];
    output.out(
      printable(
        `${dir}: ${verb} ${report.newDir}: ${report.batchesKept} verified batches (${report.eventsKept} events)` +
          `${report.damage ? `, damage at ${report.damage.data.file ?? ''}${report.damage.data.offset !== undefined ? ` offset ${report.damage.data.offset}` : ''}: ${report.damage.message}` : ''}` +
          (report.damage ? `, ${report.recoveredMessages} messages recovered past it${leftOutText(report.leftOutMessages)}` : ': nothing was damaged, the new session holds all of it'),
      ) + '\n',
    );
  }
  setExit(0);
}

/** The messages past the damage that were left out, and why, in words (nothing when none were). */
function leftOutText(leftOut: SalvageReport['leftOutMessages']): string {
  const parts = [
    leftOut.host > 0 ? `${leftOut.host} of Reasonix's own context messages (it writes them again)` : '',
    leftOut.localOnly > 0 ? `${leftOut.localOnly} local-only` : '',
    leftOut.refused > 0 ? `${leftOut.refused} Reasonix would refuse` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `; left out: ${parts.join(', ')}` : '';
}

function describeTranscriptSalvage(report: TranscriptSalvageReport): string {
  const verb = report.action === 'salvaged' ? 'salvaged into' : 'would salvage into';
  const lines = [`${report.source}: ${verb} ${report.newPath}: ${report.linesKept} messages kept, ${report.dropped.length} ${report.dropped.length === 1 ? 'line' : 'lines'} left out`];
  if (report.byteOrderMarkRemoved) lines.push('  the byte-order mark at its start was left out');
  for (const dropped of report.dropped) lines.push(`  ${dropped.reason}`);
  const platform = process.platform === 'win32' ? 'win32' : 'linux';
  lines.push(`  resume it with: ${reasonixResume(report.newPath, platform)}   (or migrate it: rxstore migrate jsonl-to-v4 ${quote(report.newPath, platform)})`);
  return `${lines.map(printable).join('\n')}\n`;
}
