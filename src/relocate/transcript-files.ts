import { transcriptSidecars } from '../store/jsonl/jsonl-sidecars.js';

/** Sidecars and locks of `<id>.jsonl` beyond the regular-file ones a migration freezes (docs/format.md §11.2). */
const MORE_SUFFIXES = [
  'events.jsonl.rotating',
  'transcript-projection.json',
  'cleanup-pending.json',
  'jsonl.lock',
  'jsonl.lease.lock',
  'jsonl.lease.json',
  'ckpt',
  'jobs',
  'inbox',
];

/**
 * The names, in a JSONL store folder, that belong to transcript `id`: its sidecars, locks and
 * folders that are there, then the transcript itself, last — moved in this order, a transcript
 * found in its new place has every file of its own there too.
 */
export function transcriptFiles(id: string, names: readonly string[]): string[] {
  const own = new Set([
    ...transcriptSidecars(`${id}.jsonl`).map((path) => path.replace(/^\.\//, '')),
    ...MORE_SUFFIXES.map((suffix) => `${id}.${suffix}`),
  ]);
  return [...names.filter((name) => own.has(name)).sort(), `${id}.jsonl`];
}
