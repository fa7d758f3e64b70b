/**
 * Files that end in `.jsonl` beside transcripts without being one (spec §11.2): event, turn and
 * diagnostic logs of a session, and sub-agent worker logs.
 */
const SIDECAR_SUFFIXES = ['.events.jsonl', '.turns.jsonl', '.conflicts.jsonl', '.guardian.jsonl', '.wire.jsonl', '.adjudication.jsonl', '.execution.jsonl'];

/** Whether a file in a JSONL `sessions` directory is a transcript, `<id>.jsonl` (spec §11.1, §11.2). */
export function isTranscriptName(name: string): boolean {
  return (
    name.endsWith('.jsonl') &&
    !name.startsWith('.') &&
    !name.startsWith('subagent-') &&
    !SIDECAR_SUFFIXES.some((suffix) => name.endsWith(suffix))
  );
}

/** The session id of a transcript: its name without the final `.jsonl` (spec §11.1). */
export function transcriptId(name: string): string {
  return name.slice(0, -'.jsonl'.length);
}
