import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedStoreError } from '../../src/errors/index.js';
import { FrameParser } from '../../src/codec/frame-parser.js';
import { collectLog } from '../support/collect.js';
import { vectorsDir } from '../support/paths.js';

const log = readFileSync(join(vectorsDir, 'demo-session-0001', 'events.frames'));

async function* chunks(bytes: Buffer, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Like a file source: every chunk is written into the same buffer, over the one before. */
async function* refilledChunks(bytes: Buffer, size: number) {
  const buffer = Buffer.alloc(size);
  for (let at = 0; at < bytes.length; at += size) {
    const length = bytes.copy(buffer, 0, at, at + size);
    yield buffer.subarray(0, length);
    buffer.fill(0xee);
  }
}

describe('frame reading does not depend on chunk boundaries', () => {
  it('gives the same batches fed one byte at a time as fed whole', async () => {
    const whole = await collectLog(chunks(log, log.length));
    for (const size of [1, 2, 7, 12, 13, 500]) {
      const chunked = await collectLog(chunks(log, size));
      expect(chunked).toEqual(whole);
    }
  });

  it('gives the same batches from a source that refills one buffer, records decoded into one buffer', async () => {
    const whole = await collectLog(chunks(log, log.length));
    for (const size of [1, 7, 13, 500, 4096]) {
      expect(await collectLog(refilledChunks(log, size))).toEqual(whole);
      expect(await collectLog(refilledChunks(log, size), undefined, { transientRaw: true })).toEqual(whole);
    }
  });

  it('treats a log cut at any offset as committed batches plus a torn tail, never as damage', async () => {
    for (let cut = 0; cut < log.length; cut += 1) {
      const { batches, torn } = await collectLog(chunks(log.subarray(0, cut), 64));
      expect(batches).toHaveLength(0);
      if (cut === 0) expect(torn).toBeNull();
      else expect(torn).toEqual({ offset: 0, bytes: cut, reason: expect.any(String) });
    }
  });
});

describe('invalid frames are damage, named with their offset', () => {
  it('refuses a bad magic at the frame where it stands', async () => {
    const second = 12 + log.readUInt32BE(4);
    const bad = Buffer.from(log);
    bad.write('XX4F', second, 'ascii');
    const error = await collectLog(chunks(bad, 100), 'events.frames').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DamagedStoreError);
    expect((error as DamagedStoreError).data).toMatchObject({ file: 'events.frames', offset: second });
    expect((error as DamagedStoreError).message).toBe('invalid v4 frame magic');
  });

  it('checks declared sizes before waiting for (or allocating) the body', () => {
    const header = Buffer.from('RX4F\x7f\xff\xff\xff\x00\x00\x00\x10', 'latin1');
    const parser = new FrameParser('huge');
    expect(() => [...parser.push(header)]).toThrow(/invalid v4 frame compressed size 2147483647/);
    const zero = Buffer.from('RX4F\x00\x00\x00\x10\x00\x00\x00\x00', 'latin1');
    expect(() => [...new FrameParser('zero').push(zero)]).toThrow(/invalid v4 frame raw size 0/);
  });

  it('refuses a frame whose raw-size field is off by one', async () => {
    const bad = Buffer.from(log);
    bad.writeUInt32BE(log.readUInt32BE(8) + 1, 8);
    await expect(collectLog(chunks(bad, 1))).rejects.toThrow('v4 frame decoded 329 bytes, expected 330');
    bad.writeUInt32BE(log.readUInt32BE(8) - 1, 8);
    await expect(collectLog(chunks(bad, 1))).rejects.toThrow('v4 frame decoded more than 328 bytes, expected 328');
  });
});
