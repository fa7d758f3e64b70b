import { basename, dirname, join } from 'node:path';

/**
 * The regular-file sidecars a JSONL transcript owns (Reasonix's SessionSidecarFiles): migrations
 * freeze and copy them with the transcript (docs/format.md §10.1, §11.2). Lock and lease files are not
 * among them.
 */
export function transcriptSidecars(transcriptPath: string): string[] {
  const dir = dirname(transcriptPath);
  const stem = basename(transcriptPath).replace(/\.jsonl$/, '');
  return [
    `${transcriptPath}.meta`,
    ...[
      'goal-state.json',
      'events.jsonl',
      'events.jsonl.damaged',
      'turns.jsonl',
      'turns.jsonl.damaged',
      'event-index.json',
      'display-index.json',
      'conflicts.jsonl',
      'recovery.json',
      'context.json',
      'pinned-context.json',
    ].map((suffix) => join(dir, `${stem}.${suffix}`)),
  ];
}

/** A JSONL session's id ("branch id"): the file name without its final extension (docs/format.md §11.1). */
export function branchIdOf(transcriptPath: string): string {
  return basename(transcriptPath).replace(/\.[^.]*$/, '');
}
