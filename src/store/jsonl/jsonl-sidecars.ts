import { basename, dirname, join } from 'node:path';
import { kindInWords } from '../../fs/path-kind.js';
import { statOrUndefined } from '../../fs/stat-or-undefined.js';
import { waitsForever } from '../../fs/waits-forever.js';
import type { Problem } from '../../errors/index.js';
import type { ReadPaths } from '../../fs/path-kind.js';
import { sessionReadPaths } from '../../session/reading/session-files.js';

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

/**
 * What reading a JSONL session reads, which a command writing elsewhere must not land in: the
 * transcript, its sidecar files and its sidecar folders (docs/format.md §11.2).
 */
export function transcriptReadPaths(transcriptPath: string): ReadPaths {
  const stem = join(dirname(transcriptPath), branchIdOf(transcriptPath));
  return {
    name: `the session ${transcriptPath}`,
    dirs: ['ckpt', 'jobs', 'inbox'].map((suffix) => `${stem}.${suffix}`),
    files: [transcriptPath, ...transcriptSidecars(transcriptPath), `${stem}.cleanup-pending.json`],
  };
}

/** What reading a session (a v4 directory or a `.jsonl` transcript) reads. */
export function readPathsOf(sessionPath: string): ReadPaths {
  return sessionPath.endsWith('.jsonl') ? transcriptReadPaths(sessionPath) : sessionReadPaths(sessionPath);
}

/** The longest name a file system takes, in bytes (Linux's NAME_MAX; macOS's and Windows' are as long or longer). */
const NAME_MAX = 255;

/**
 * The longest name Reasonix 1.38.11 derives from a transcript's on a resume (measured: a stem of 228 bytes
 * resumes, one of 229 fails on this name, longer ones on `.events.jsonl.rotating` or `.jsonl.lease.lock`).
 */
const LONGEST_SIDECAR_SUFFIX = '.transcript-projection.json';

/** The longest stem (a transcript's name without `.jsonl`), in bytes, whose sidecars' names a file system takes. */
export const LONGEST_STEM_BYTES = NAME_MAX - Buffer.byteLength(LONGEST_SIDECAR_SUFFIX);

/** `stem` cut (at a whole character) so that it and `suffix` together are a stem Reasonix can resume by. */
export function stemWithin(stem: string, suffix: string): string {
  const kept = Array.from(stem);
  while (Buffer.byteLength(kept.join('') + suffix) > LONGEST_STEM_BYTES) kept.pop();
  return kept.join('') + suffix;
}

/**
 * A sidecar of the transcript that is a FIFO, a socket or a device that never runs out (a link to one too): Reasonix
 * 1.38.11 resuming the transcript reads every sidecar to freeze it and waits on such a one forever
 * (a directory it passes over). Measured: no migration is made, where a regular meta file is. And a
 * transcript whose name leaves no room for its sidecars' names: Reasonix fails to make them.
 */
export function blockedSidecar(transcriptPath: string): Problem | undefined {
  const stem = branchIdOf(transcriptPath);
  if (Buffer.byteLength(stem) > LONGEST_STEM_BYTES)
    return {
      code: 'RX_BLOCKED_FILE',
      severity: 'error',
      message: `the transcript's name is too long for the files Reasonix keeps beside it: Reasonix 1.38.11 resuming it fails on ${stem.slice(0, 40)}…${LONGEST_SIDECAR_SUFFIX} (file name too long)`,
      data: { file: transcriptPath },
    };
  for (const file of transcriptSidecars(transcriptPath)) {
    // A sidecar that is missing or cannot be looked at blocks nothing here: the reads say the rest.
    const stats = statOrUndefined(file);
    // A device that reads as empty at once (`/dev/null`) Reasonix reads as an empty file (a helper's trial).
    if (!stats || stats.isFile() || stats.isDirectory() || !waitsForever(file)) continue;
    return {
      code: 'RX_BLOCKED_FILE',
      severity: 'error',
      message: `${basename(file)} is ${kindInWords(stats)}, not a regular file: Reasonix 1.38.11 resuming the transcript waits on it forever`,
      data: { file },
    };
  }
  return undefined;
}
