import { EXIT, type ExitCode } from '../exit-codes.js';
import { planRelocation, printable, relocate, type RelocationPlan, type RelocationReport } from '../../index.js';
import { warningLine } from '../error-line.js';
import { jsonOutput } from '../json-output.js';
import type { Output } from '../output.js';
import type { RootArgs } from '../root-options.js';

/** What `rxstore relocate` is run with: the options relocate.ts declares, as yargs gives them. */
export interface RelocateArgs extends RootArgs {
  old: string;
  new: string;
  session?: string;
  dryRun: boolean;
  keep: boolean;
  force: boolean;
  json: boolean;
}

/** `rxstore relocate`, run: the plan first (printed alone with --dry-run), then the move. */
export async function runRelocate(
  args: RelocateArgs,
  output: Output,
  setExit: (code: ExitCode) => void,
): Promise<void> {
  const plan = await planRelocation({
    from: args.old,
    to: args.new,
    ...(args.home !== undefined ? { home: args.home } : {}),
    ...(args.stateHome !== undefined ? { stateHome: args.stateHome } : {}),
    ...(args.cwd !== undefined ? { cwd: args.cwd } : {}),
    ...(args.session !== undefined ? { session: args.session } : {}),
    force: args.force,
    keep: args.keep,
  });
  if (args.dryRun) {
    output.out(
      args.json ? `${jsonOutput({ dryRun: true, plan }, 2)}\n` : `${planText(plan)}dry run: nothing was changed\n`,
    );
    setExit(EXIT.done);
    return;
  }
  if (plan.stores.length === 0) {
    // Nothing under the old slug, its sessions already under the new one: a finished move, run again.
    output.out(args.json ? `${jsonOutput({ dryRun: false, plan }, 2)}\n` : planText(plan));
    setExit(EXIT.done);
    return;
  }
  const report = await relocate(plan);
  output.out(args.json ? `${jsonOutput({ dryRun: false, ...report }, 2)}\n` : `${planText(plan)}${doneText(report)}`);
  // Exit 0 all the same: every session moved; only a run again of this move will not know it finished.
  for (const why of report.unrecorded) output.err(warningLine(why));
  setExit(EXIT.done);
}

function planText(plan: RelocationPlan): string {
  const p = printable;
  const lines = [`${p(plan.from)} (slug ${p(plan.fromSlug)}) -> ${p(plan.to)} (slug ${p(plan.toSlug)})`];
  for (const store of plan.stores) {
    const v4 = store.sessions.filter((session) => session.store === 'sessions-v4').length;
    const jsonl = store.sessions.length - v4;
    const parts = [
      `${v4} sessions-v4 ${v4 === 1 ? 'session' : 'sessions'}`,
      `${jsonl} JSONL ${jsonl === 1 ? 'transcript' : 'transcripts'}`,
    ];
    if (store.others.length > 0) parts.push(`other entries: ${store.others.map((other) => p(other)).join(', ')}`);
    if (store.desktopWorkspaces.length > 0)
      parts.push(
        `${store.desktopWorkspaces.length} desktop ${store.desktopWorkspaces.length === 1 ? 'workspace' : 'workspaces'}`,
      );
    if (store.desktopSessions.length > 0)
      parts.push(
        `${store.desktopSessions.length} desktop ${store.desktopSessions.length === 1 ? 'session' : 'sessions'} (their recorded folder)`,
      );
    lines.push(
      `  in ${p(store.stateRoot)}: ${parts.join(', ')}${store.sameDevice ? '' : ' (another file system: copied, then checked)'}`,
    );
    for (const session of store.sessions)
      lines.push(
        `    ${plan.keep ? 'copy' : 'move'}  ${p(session.id)}  ${session.store}${session.content.length > 0 ? `, ${session.content.length} content ${session.content.length === 1 ? 'file' : 'files'}` : ''}`,
      );
  }
  if (plan.copyBytes > 0) lines.push(`  ${plan.copyBytes} bytes to copy`);
  for (const note of plan.notes) lines.push(`  note: ${p(note)}`);
  return `${lines.join('\n')}\n`;
}

function doneText(report: RelocationReport): string {
  const lines = [
    `${report.plan.keep ? 'copied' : 'moved'} ${report.moved.length} ${report.moved.length === 1 ? 'session' : 'sessions'}`,
  ];
  for (const entry of report.left) lines.push(`left in place: ${printable(entry)}`);
  if (report.resume) lines.push(`resume one: ${printable(report.resume)}`);
  return `${lines.join('\n')}\n`;
}
