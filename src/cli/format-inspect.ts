import type { InspectReport } from '../session/replay/inspect-report.js';
import { printable } from './printable.js';

const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .sort(([, a], [, b]) => b - a)
    .map(([key, count]) => `${key} ${count}`)
    .join(', ');

/**
 * The readable summary `rxstore inspect` prints; one line per problem, each with code, file and
 * offset. Notes (caches Reasonix rebuilds by itself) only when `verbose`; text from the session
 * with its control characters escaped.
 */
export function formatInspect(report: InspectReport, options: { verbose?: boolean } = {}): string {
  const lines = [
    `session      ${printable(report.id)}`,
    `store        ${report.store}  ${printable(report.path)}`,
    `status       ${report.status}`,
    `workspace    ${report.workspace === null ? '(unknown)' : printable(report.workspace)}`,
    `title        ${report.title === null ? '(none)' : printable(report.title)}`,
    `created      ${report.createdAt ?? '(unknown)'}`,
    `updated      ${report.updatedAt ?? '(unknown)'}`,
    `writer gen.  ${report.writerGeneration}`,
    `batches      ${report.batches}`,
    `events       ${report.events.total}${report.events.total ? ` (${counts(report.events.byKind)})` : ''}`,
    `messages     ${report.messages.total}${report.messages.total ? ` (${counts(report.messages.byRole)}); ${report.messages.seenByPerson} a person sees` : ''}`,
    `payloadRefs  ${report.payloadRefs}`,
    `torn tail    ${report.tornTail ? `${report.tornTail.bytes} bytes at offset ${report.tornTail.offset}` : 'none'}`,
  ];
  if (report.tornEvidence.length > 0) lines.push(`torn kept    ${printable(report.tornEvidence.join(', '))}`);
  if (report.openInRunningReasonix) lines.push('open         in a running Reasonix (its writer lock is held)');
  else if (report.lockFiles.length > 0) {
    lines.push(`lock files   ${report.lockFiles.length}, not held (a lock file left behind is harmless: Reasonix's lock is an OS lock, held only while it runs; do not delete it)`);
  }
  lines.push(`content      ${report.hygiene.hasContent ? 'has messages beyond the system prompt' : 'system prompt only'}`);
  for (const finding of report.hygiene.findings) lines.push(`hygiene      ${finding.code}: ${printable(finding.message)}`);
  for (const problem of report.problems) {
    if (problem.severity === 'note' && !options.verbose) continue;
    const at = problem.offset !== undefined ? `offset ${problem.offset}` : problem.line !== undefined ? `line ${problem.line}` : undefined;
    const where = [problem.file, at].filter(Boolean).join(' at ');
    lines.push(`${problem.severity.padEnd(12)} ${problem.code} ${printable(`${where ? `${where}: ` : ''}${problem.message}`)}`);
  }
  return `${lines.join('\n')}\n`;
}
