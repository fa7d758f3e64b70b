import { readFile } from 'node:fs/promises';
import { DamagedStoreError } from '../codec/errors.js';

/** One message line of a JSONL transcript, as found (unknown keys kept for the reader to judge). */
export interface TranscriptLine {
  line: number;
  value: Record<string, unknown>;
}

/** A line that is not a JSON object with a string `role`: the transcript is damaged there. */
export class TranscriptLineError extends DamagedStoreError {
  override readonly code: string = 'RX_JSONL_LINE';
}

/**
 * Parses a JSONL transcript (spec §11.1): one provider message a line; blank lines are skipped,
 * as Reasonix skips them. Every bad line is reported with its line number.
 */
export function parseTranscript(text: string, file: string): { lines: TranscriptLine[]; errors: TranscriptLineError[] } {
  const lines: TranscriptLine[] = [];
  const errors: TranscriptLineError[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      errors.push(new TranscriptLineError(`line ${line}: not JSON (${(error as Error).message})`, { file, line }));
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { role?: unknown }).role !== 'string') {
      errors.push(new TranscriptLineError(`line ${line}: not a message object with a role`, { file, line }));
      return;
    }
    lines.push({ line, value: value as Record<string, unknown> });
  });
  return { lines, errors };
}

export async function readTranscript(file: string) {
  return parseTranscript(await readFile(file, 'utf8'), file);
}
