import { EXIT, type ExitCode } from '../exit-codes.js';
import { openSession, resolveSession } from '../../index.js';
import { jsonOutput } from '../json-output.js';
import { salvageSession, salvageTranscript, type SalvageReport, type TranscriptSalvageReport } from '../../index.js';
import type { Output } from '../output.js';
import { printable, shellCommand } from '../../index.js';
import { v4SessionPath } from '../session-path.js';
import type { RootArgs } from '../root-options.js';
import { counted } from '../plural.js';
import { basename } from 'node:path';
import { goWorkingDirectory, machineRoots, resumeOfCopy, RxError, type ResumeContext } from '../../index.js';

/** What `rxstore salvage` is run with: the options salvage.ts declares, as yargs gives them. */
export interface SalvageArgs extends RootArgs {
  session: string;
  to?: string;
  dryRun: boolean;
  json: boolean;
}

/** `rxstore salvage`, run: the command's options are in salvage.ts. */
export async function runSalvage(args: SalvageArgs, output: Output, setExit: (code: ExitCode) => void): Promise<void> {
  // A transcript is named by its path (an id names the session's sessions-v4 copy, the one salvage writes from).
  if (basename(args.session).endsWith('.jsonl')) {
    // Looked at as every command looks at what was typed: a transcript that is not there is not a session (exit 2).
    const report = await salvageTranscript(await resolveSession(args.session, args), {
      to: args.to,
      dryRun: args.dryRun,
    });
    const id = basename(report.newPath, '.jsonl');
    const resume =
      args.json || report.action === 'would-salvage' ? undefined : await resumeOfNew(report.newPath, id, args);
    // Salvage keeps a transcript's messages as they are: one Reasonix takes no new turn in still takes none; migrate repairs that.
    const refused =
      args.json || report.action === 'would-salvage'
        ? undefined
        : (await (await openSession(report.newPath)).read()).problems.find(({ code }) => code === 'RX_TURN_REFUSED');
    output.out(args.json ? `${jsonOutput(report, 2)}\n` : describeTranscriptSalvage(report, resume, refused?.message));
    setExit(EXIT.done);
    return;
  }
  const dir = await v4SessionPath(await resolveSession(args.session, { ...args, v4Only: true }));
  const report = await salvageSession(dir, { to: args.to, dryRun: args.dryRun });
  if (args.json) output.out(`${jsonOutput(report, 2)}\n`);
  else {
    const verb = {
      salvaged: 'salvaged into',
      'would-salvage': 'would salvage into',
      'already-salvaged': 'already salvaged into',
    }[report.action];
    output.out(
      printable(
        `${dir}: ${verb} ${report.newDir}: ${counted(report.batchesKept, 'verified batch', 'verified batches')} (${counted(report.eventsKept, 'event')})` +
          `${report.damage ? `, damage at ${report.damage.data.file ?? ''}${report.damage.data.offset !== undefined ? ` offset ${report.damage.data.offset}` : ''}: ${report.damage.message}` : ''}` +
          (report.damage
            ? `, ${counted(report.recoveredMessages, 'message')} recovered past it${leftOutText(report.leftOutMessages)}`
            : ': no damage in its log, the new session holds all of it'),
      ) + '\n',
    );
    if (report.turnRepair) output.out(turnRepairText(report.turnRepair));
    // The command that goes on with the new session, as `rxstore where` would print it from here.
    const resume = report.action === 'would-salvage' ? undefined : await resumeOfNew(report.newDir, report.newId, args);
    if (resume) output.out(`${printable(`  resume it with: ${resume}`)}\n`);
  }
  setExit(EXIT.done);
}

/** What was changed in what the model is sent, each change with what was there. */
function turnRepairText(repair: NonNullable<SalvageReport['turnRepair']>): string {
  const lines = [
    `  Reasonix refused a new turn in it ("${repair.refusal}"): what the model is sent was changed (the transcript keeps every message as it was):`,
  ];
  for (const change of repair.changes) {
    const call = change.call !== null ? ` call ${JSON.stringify(change.call)}` : '';
    lines.push(
      `    message ${change.message}${change.messageId ? ` (${change.messageId})` : ''}${call}: ${change.what}${change.before || change.after ? `: ${JSON.stringify(change.before)} -> ${JSON.stringify(change.after)}` : ''}`,
    );
  }
  return lines.map((line) => `${printable(line)}\n`).join('');
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

/** What `rxstore where` judges resume commands by, run here with the same roots. */
async function whereContext(args: SalvageArgs): Promise<ResumeContext> {
  return (await machineRoots(args)).resume;
}

/** The resume line's command, after the salvage is done: roots that cannot be read leave it out, never fail what was written. */
async function resumeOfNew(path: string, id: string, args: SalvageArgs): Promise<string | null | undefined> {
  try {
    const context = await whereContext(args);
    const command = await resumeOfCopy(path, id, context);
    // Judged from another folder than this one (`--cwd`): the command goes there first, as `where`'s does.
    const elsewhere = args.cwd !== undefined && context.cwd !== goWorkingDirectory();
    return command && elsewhere ? shellCommand(command, context.platform, { from: context.cwd }) : command;
  } catch (error) {
    if (error instanceof RxError) return undefined;
    throw error;
  }
}

/** `resume`: the command `rxstore where` prints for the new transcript, when it could judge it. */
function describeTranscriptSalvage(
  report: TranscriptSalvageReport,
  resume: string | null | undefined,
  refused: string | undefined,
): string {
  const verb = {
    salvaged: 'salvaged into',
    'would-salvage': 'would salvage into',
    'already-salvaged': 'already salvaged into',
  }[report.action];
  const lines = [
    `${report.source}: ${verb} ${report.newPath}: ${counted(report.linesKept, 'message')} kept, ${counted(report.dropped.length, 'line')} left out`,
  ];
  if (report.byteOrderMarkRemoved) lines.push('  the byte-order mark at its start was left out');
  // A reason shows the line it is about: text from the transcript, escaped with every line below.
  for (const dropped of report.dropped) lines.push(`  ${dropped.reason}`);
  const platform = process.platform === 'win32' ? 'win32' : 'linux';
  if (refused)
    lines.push(
      `  ${refused.replace(/; `rxstore salvage` writes a copy it goes on with$/, '')}: rxstore migrate jsonl-to-v4 ${shellCommand([report.newPath], platform)} writes a session it goes on with`,
    );
  else
    lines.push(
      `  resume it with: ${resume ?? shellCommand(['reasonix', '--resume', report.newPath], platform)}   (or migrate it: rxstore migrate jsonl-to-v4 ${shellCommand([report.newPath], platform)})`,
    );
  return `${lines.map((line) => printable(line)).join('\n')}\n`;
}
