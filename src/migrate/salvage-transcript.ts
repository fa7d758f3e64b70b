import { lstat, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { NothingToSalvageError } from '../errors/index.js';
import { goJsonIndented } from '../codec/go-json.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { checkFolder } from '../fs/path-kind.js';
import { readableOrThrow, readJsonFile } from '../session/reading/read-json-file.js';
import { branchIdOf } from '../store/jsonl/jsonl-sidecars.js';
import { JsonlMetaSchema } from '../store/jsonl/jsonl-meta.js';
import { parseTranscript } from '../store/jsonl/jsonl-transcript.js';
import { goText } from '../codec/go-text.js';

/** A line of the damaged transcript that was left out of the salvaged one, and why. */
export interface DroppedLine {
  line: number;
  reason: string;
}

export interface TranscriptSalvageReport {
  source: string;
  action: 'salvaged' | 'would-salvage';
  /** The new transcript (its `.jsonl.meta` beside it when the source had a readable one). */
  newPath: string;
  newId: string;
  linesKept: number;
  dropped: DroppedLine[];
  /** A byte-order mark at the start of the file, which Reasonix does not read past, was left out. */
  byteOrderMarkRemoved: boolean;
}

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * Recovers a JSONL transcript with bad lines into a new transcript beside it (or in `to`) and
 * leaves the original untouched: every line that is a message on its own, byte for byte and in
 * order (Reasonix reads a transcript as one stream, so one cut line stops it; here it costs only
 * itself); bad lines are left out and listed. The new transcript's id is `<id>-salvaged` (then `-2`, `-3`, …),
 * so it never takes the place of the original; `reasonix --resume <new id>` or `rxstore migrate`
 * take it from there. Its `.jsonl.meta` is the original's with the new id.
 */
export async function salvageTranscript(path: string, options: { to?: string; dryRun?: boolean } = {}): Promise<TranscriptSalvageReport> {
  if (options.to !== undefined) await checkFolder(resolve(options.to), options.to);
  const source = resolve(path);
  const text = goText(await readFile(source));
  const byteOrderMarkRemoved = text.startsWith(BYTE_ORDER_MARK);
  const body = byteOrderMarkRemoved ? text.slice(BYTE_ORDER_MARK.length) : text;
  // Line by line, each judged on its own as Reasonix's loader would judge it: a bad line costs only itself.
  const kept: string[] = [];
  const dropped: DroppedLine[] = [];
  body.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const { lines, errors } = parseTranscript(raw, source);
    if (errors.length === 0 && lines.length === 1) kept.push(raw);
    else {
      // Judged alone, a line that runs out inside its message was cut, whatever follows it in the file.
      const why = errors[0]?.message.replace(/^line \d+: /, '').replace('the file ends inside a message', 'the line ends inside a message') ?? 'more than one message on the line';
      dropped.push({ line: index + 1, reason: `line ${index + 1}: ${why}` });
    }
  });
  if (kept.length === 0) throw new NothingToSalvageError(`${source}: no line of it is a message; there is nothing to salvage`, { file: source });

  const newPath = await freeTranscriptPath(resolve(options.to ?? dirname(source)), branchIdOf(source));
  const report: TranscriptSalvageReport = {
    source,
    action: options.dryRun ? 'would-salvage' : 'salvaged',
    newPath,
    newId: branchIdOf(newPath),
    linesKept: kept.length,
    dropped,
    byteOrderMarkRemoved,
  };
  if (options.dryRun) return report;
  await writeFileAtomic(newPath, `${kept.join('\n')}\n`);
  const meta = readableOrThrow(await readJsonFile(`${source}.meta`, JsonlMetaSchema));
  if (meta.state === 'ok') await writeFileAtomic(`${newPath}.meta`, goJsonIndented({ ...meta.value, id: report.newId }));
  return report;
}

/** `<dir>/<id>-salvaged.jsonl`, or the first `-salvaged-N` whose transcript and meta are both free. */
async function freeTranscriptPath(dir: string, id: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = join(dir, `${id}-salvaged${n === 1 ? '' : `-${n}`}.jsonl`);
    const taken = await Promise.all([candidate, `${candidate}.meta`].map((file) => lstat(file).then(() => true, () => false)));
    if (!taken.includes(true)) return candidate;
  }
}

/** Whether a path names a JSONL transcript rather than a session directory. */
export function isTranscriptPath(path: string): boolean {
  return basename(path).endsWith('.jsonl');
}
