import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { simpleWorkspaceSlug } from '../../test/support/reasonix/reasonix.js';
import { cachedInput } from './cached-input.js';
import { benchWorkspace } from './paths.js';
import { MiB } from './sessions.js';
import { TurnPlan } from './turn-plan.js';

export interface BenchTranscript {
  /** A state root holding only `projects/<slug>/sessions/<stem>.jsonl`, where `run --resume <stem>` finds it. */
  stateRoot: string;
  file: string;
  stem: string;
  bytes: number;
  messages: number;
}

/**
 * A JSONL transcript (docs/format.md §11.1) of at least `mib` MiB: the messages of the same realistic turns
 * the v4 sessions hold, one per line, without ids, as the builds that wrote JSONL stored them
 * (migration then derives the ids, docs/format.md §8.3).
 */
export async function benchTranscript(mib: number): Promise<BenchTranscript> {
  const stem = `bench-${mib}mib`;
  const params = { bytes: mib * MiB, seed: 20261201, workspace: benchWorkspace };
  const sessionsDir = (root: string) => join(root, 'projects', simpleWorkspaceSlug(benchWorkspace), 'sessions');
  const input = await cachedInput(`transcript-${mib}mib`, params, async (dir) => {
    await mkdir(sessionsDir(dir), { recursive: true });
    const out = createWriteStream(join(sessionsDir(dir), `${stem}.jsonl`));
    const plan = new TurnPlan(params.seed, params.workspace);
    let bytes = 0;
    let messages = 0;
    const write = (batches: ReturnType<TurnPlan['nextTurn']>) => {
      for (const batch of batches) {
        for (const event of batch.events) {
          if (event.kind !== 'message/complete') continue;
          const { id: _id, ...message } = (event.payload as { message: Record<string, unknown> }).message;
          const line = `${JSON.stringify(message)}\n`;
          out.write(line);
          bytes += Buffer.byteLength(line);
          messages += 1;
        }
      }
    };
    write([plan.sessionCreate()]);
    while (bytes < params.bytes) write(plan.nextTurn());
    out.end();
    await finished(out);
    return { bytes, messages };
  });
  return { ...input.value, stateRoot: input.dir, stem, file: join(sessionsDir(input.dir), `${stem}.jsonl`) };
}
