import { createZlibZstdBackend } from '../../src/codec/zstd/zlib-zstd-backend.js';
import { createZstdNapiBackend } from '../../src/codec/zstd/zstd-napi-backend.js';
import type { ZstdBackend } from '../../src/codec/zstd/zstd-backend.js';
import { zstdBackend } from '../../src/codec/zstd/zstd.js';
import { megabytesPerSecond, seconds, skipped, speedup, type Figure } from '../support/figure.js';
import { timeTogether } from '../support/timing.js';

const RECORDS = 50_000;

/** Records shaped like a log's: one small JSON object per frame, a few hundred bytes each, some larger. */
function records(): Buffer[] {
  return Array.from({ length: RECORDS }, (_, i) =>
    Buffer.from(
      JSON.stringify({
        recordType: 'batch/event',
        sequence: i,
        kind: 'message.appended',
        text: `word${i % 97} `.repeat(10 + ((i * 7919) % 400)),
      }),
    ),
  );
}

function napiOrUndefined(): ZstdBackend | undefined {
  try {
    return createZstdNapiBackend();
  } catch {
    return undefined;
  }
}

/**
 * The two zstd backends side by side on one frame per record, where this Node has both: the one
 * rxstore chose (node:zlib from Node 22.15 on) against the zstd-napi addon, decoding into one
 * reused buffer as the reader does, and encoding as the writer does.
 */
export async function zstdRow(): Promise<Figure[]> {
  const zlib = createZlibZstdBackend();
  const napi = napiOrUndefined();
  if (!zlib || !napi) {
    const missing = zlib ? 'the zstd-napi addon did not load' : `Node ${process.versions.node} has no built-in zstd`;
    return [skipped('zstd', 'node:zlib vs zstd-napi', `${missing}; rxstore uses ${zstdBackend().name}`)];
  }
  const raw = records();
  const rawBytes = raw.reduce((sum, record) => sum + record.length, 0);
  const frames = raw.map((record) => napi.compress(record));
  const into = Buffer.allocUnsafe(Math.max(...raw.map((record) => record.length)) + 1);
  const decodeAll = (backend: ZstdBackend) => async () => {
    for (let i = 0; i < frames.length; i += 1) backend.decompress(frames[i]!, raw[i]!.length, into);
  };
  const encodeAll = (backend: ZstdBackend) => async () => {
    for (const record of raw) backend.compress(record);
  };
  const plan = { runs: 5, warmup: 1 };
  const decode = await timeTogether(plan, { zlib: decodeAll(zlib), napi: decodeAll(napi) });
  const encode = await timeTogether(plan, { zlib: encodeAll(zlib), napi: encodeAll(napi) });
  const figure = (measure: string, timing: typeof decode): Figure => ({
    row: 'zstd',
    measure: `${measure} ${RECORDS.toLocaleString('en-US')} record frames (${(rawBytes / 1e6).toFixed(0)} MB), node:zlib vs zstd-napi`,
    rxstore: `${seconds(timing.zlib.median)} (${megabytesPerSecond(rawBytes, timing.zlib.median)})`,
    reference: `${seconds(timing.napi.median)} (${megabytesPerSecond(rawBytes, timing.napi.median)})`,
    ratio: speedup(timing.napi.median, timing.zlib.median),
    target: '—',
    verdict: 'info',
    data: { records: RECORDS, rawBytes, zlib: timing.zlib, napi: timing.napi, chosen: zstdBackend().name },
  });
  return [figure('decode', decode), figure('encode', encode)];
}
