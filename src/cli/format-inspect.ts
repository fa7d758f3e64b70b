import { basename } from 'node:path';
import { printable, RX_ERROR_FAMILIES, type InspectReport } from '../index.js';

const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .sort(([, a], [, b]) => b - a)
    // A message without a role (Go's zero value) is named so, not left a blank.
    .map(([key, count]) => `${key === '' ? '(no role)' : printable(key)} ${count}`)
    .join(', ');

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The readable summary `rxstore inspect` prints; one line per problem, each with code, file and
 * offset. Notes (caches Reasonix rebuilds by itself) only when `verbose`; text from the session
 * with its control characters escaped.
 */
export function formatInspect(report: InspectReport, options: { verbose?: boolean } = {}): string {
  // Under --strict a warning is an error: the status is Reasonix's, and the line says what else fails the run.
  const promoted = [...report.hygiene.findings, ...report.problems].filter(
    (found) => found.severity === 'error' && RX_ERROR_FAMILIES[found.code] === 'finding',
  ).length;
  const lines = [
    `session      ${printable(report.id)}`,
    `store        ${report.store}  ${printable(report.path)}`,
    `status       ${report.status}${promoted > 0 ? ` (${plural(promoted, 'warning')} made an error by --strict)` : ''}`,
    `workspace    ${report.workspace === null ? '(unknown)' : printable(report.workspace)}`,
    `title        ${report.title === null ? '(none)' : `${printable(report.title)}${report.titleFrom === 'preview' ? '  (its first message: no title of its own)' : ''}`}`,
    `created      ${report.createdAt ?? '(unknown)'}`,
    `updated      ${report.updatedAt ?? '(unknown)'}`,
    `writer gen.  ${report.writerGeneration}`,
    `batches      ${report.batches}`,
    `events       ${report.events.total}${report.events.total ? ` (${counts(report.events.byKind)})` : ''}`,
    `messages     ${report.messages.total}${report.messages.total ? ` (${counts(report.messages.byRole)}); ${report.messages.seenByPerson} a person sees` : ''}`,
    `payloadRefs  ${report.payloadRefs}`,
    `torn tail    ${report.tornTail ? `${plural(report.tornTail.bytes, 'byte')} at offset ${report.tornTail.offset}` : 'none'}`,
  ];
  if (report.tornEvidence.length > 0) lines.push(`torn kept    ${printable(report.tornEvidence.join(', '))}`);
  if (report.openInRunningReasonix) lines.push('open         in a running Reasonix (its writer lock is held)');
  else if (report.lockFiles.length > 0) {
    // A lock file Reasonix cannot use is refused below: not called harmless here.
    const blocked = report.problems.filter(
      (problem) => problem.code === 'RX_BLOCKED_FILE' && report.lockFiles.includes(problem.data.file ?? ''),
    );
    lines.push(
      blocked.length > 0
        ? `lock files   ${report.lockFiles.length}, not held; ${blocked.map((problem) => printable(basename(problem.data.file!))).join(', ')} Reasonix cannot use (below)`
        : `lock files   ${report.lockFiles.length}, not held (a lock file left behind is harmless: Reasonix's lock is an OS lock, held only while it runs; do not delete it)`,
    );
  }
  // Whether a person can go on working in it, said plainly; Reasonix's refusal in its own words.
  if (report.newTurn)
    lines.push(
      `new turn     ${report.newTurn.accepted ? 'Reasonix opens it and takes a new turn in it' : `Reasonix opens it but refuses a new turn: "${printable(report.newTurn.reason ?? '')}"`}`,
    );
  // Damaged, yet opened: Reasonix starts from its recovery checkpoint and never reads the damage.
  const past = report.goesOnFrom;
  if (past)
    lines.push(
      `reasonix     goes on with it: it opens it from its recovery checkpoint ${printable(past.checkpoint)} (the log to sequence ${past.sequence}) and reads nothing of the log before offset ${past.anchorOffset}${past.damagedAt === null ? '' : `, past the damage at offset ${past.damagedAt}`}; without that checkpoint it refuses it (below)`,
    );
  lines.push(
    `content      ${report.hygiene.hasContent ? 'has messages beyond the system prompt' : report.messages.total === 0 ? 'no messages' : 'system prompt only'}`,
  );
  for (const finding of report.hygiene.findings)
    lines.push(
      `hygiene      ${finding.severity === 'error' ? 'error ' : ''}${finding.code}: ${printable(finding.message)}`,
    );
  for (const problem of report.problems) {
    if (problem.severity === 'note' && !options.verbose) continue;
    const at =
      problem.offset !== undefined
        ? `offset ${problem.offset}`
        : problem.line !== undefined
          ? `line ${problem.line}`
          : undefined;
    const where = [problem.file, at].filter(Boolean).join(' at ');
    lines.push(
      `${problem.severity.padEnd(12)} ${problem.code} ${printable(`${where ? `${where}: ` : ''}${problem.message}`)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
