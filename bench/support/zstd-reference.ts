import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { FRAME_HEADER_BYTES, parseFrameHeader } from '../../src/codec/frame.js';
import { zstd } from '../../src/codec/zstd/zstd.js';
import { cachedInput } from './cached-input.js';
import { runChildOk } from './child.js';
import type { BenchSession } from './sessions.js';

const ZSTD_CLI = '/usr/bin/zstd';

export interface ZstdReferenceFiles {
  /** The log's zstd frames, one per record, back to back: itself a valid zstd stream. */
  frames: string;
  /** The same raw record bytes as one `zstd -1` frame. */
  oneFrame: string;
}

/** The two zstd inputs holding exactly the session's record bytes, made once per session. */
export async function zstdReferenceFiles(session: BenchSession): Promise<ZstdReferenceFiles> {
  const params = { session: session.id, rawBytes: session.rawBytes, logBytes: session.logBytes };
  const { dir } = await cachedInput(`zstd-${session.id.slice(0, 8)}`, params, async (into) => {
    const log = await readFile(session.log);
    const out = createWriteStream(join(into, 'frames.zst'));
    forEachFrame(log, (body) => out.write(body));
    out.end();
    await finished(out);
    await runChildOk('sh', ['-c', `"${ZSTD_CLI}" -dc frames.zst | "${ZSTD_CLI}" -1 -q -c > one-frame.zst`], {
      cwd: into,
    });
    return {};
  });
  return { frames: join(dir, 'frames.zst'), oneFrame: join(dir, 'one-frame.zst') };
}

/** `zstd -dc [flags] <file> > /dev/null`, as a child process. */
export function zstdDecompress(file: string, flags: readonly string[] = []): Promise<unknown> {
  return runChildOk(ZSTD_CLI, ['-dc', ...flags, file]);
}

/**
 * The floor under any reader of this format in this process: rxstore's own zstd backend
 * decompressing every frame of a log already in memory, with nothing else done.
 */
export async function decompressEveryFrame(log: Buffer): Promise<void> {
  forEachFrame(log, (body, rawSize) => zstd.decompress(body, rawSize));
}

/**
 * The least any verify-scan of this format does, in this process, on a log already in memory:
 * decompress every frame, hash its bytes, parse its JSON, and decode and parse an inline payload.
 * No checks, no projection, nothing kept: what is left of rxstore's time above this is its own.
 */
export async function irreducibleScan(log: Buffer): Promise<void> {
  let digest = createHash('sha256');
  forEachFrame(log, (body, rawSize) => {
    const raw = zstd.decompress(body, rawSize);
    digest.update(raw);
    const record = JSON.parse(raw.toString('utf8')) as { recordType?: string; event?: { payload?: string } };
    if (record.event?.payload) JSON.parse(Buffer.from(record.event.payload, 'base64').toString('utf8'));
    if (record.recordType === 'batch/end') {
      digest.digest();
      digest = createHash('sha256');
    }
  });
}

/** Walks the frames of a well-formed log in memory: each one's zstd body and declared raw size. */
function forEachFrame(log: Buffer, visit: (body: Buffer, rawSize: number) => void): void {
  for (let at = 0; at < log.length; ) {
    const header = parseFrameHeader(log, at);
    const end = at + header.frameBytes;
    visit(log.subarray(at + FRAME_HEADER_BYTES, end), header.rawBytes);
    at = end;
  }
}
