import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** `.jsonl` files that sit beside transcripts but are not transcripts (docs/format.md §11.2). */
const NOT_TRANSCRIPTS = /\.(events|turns|conflicts|guardian|wire|adjudication|execution)\.jsonl$|^subagent-/;

/** Whether a file name in a JSONL store names a transcript. */
export function isTranscriptName(name: string): boolean {
  return name.endsWith('.jsonl') && !name.startsWith('.') && !NOT_TRANSCRIPTS.test(name);
}

/** The transcripts directly inside a JSONL directory, sorted. */
export async function listTranscripts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && isTranscriptName(entry.name))
    .map((entry) => join(dir, entry.name))
    .sort();
}
