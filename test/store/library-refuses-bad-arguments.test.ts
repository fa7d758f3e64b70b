import { describe, expect, it } from 'vitest';
import {
  indexSince,
  listSessions,
  locateSession,
  migrateJsonlToV4,
  openSession,
  openLogSession,
  repairSession,
  RxError,
  salvageSession,
  salvageTranscript,
  search,
} from '../../src/index.js';
import { copySession } from '../support/faults/faults.js';
import { fixture } from '../support/fixtures.js';

/**
 * What a caller without TypeScript's types may pass: each is refused before anything is read, as an RxError
 * with the code RX_INVALID_INPUT and words that name the argument, never Node's TypeError from deep in a read,
 * nor taken in silence (a count of 0 would give no batch and the same cursor again, for ever).
 */
async function refusal(call: () => unknown): Promise<RxError> {
  try {
    const result = call();
    if (result && typeof result === 'object' && Symbol.asyncIterator in result)
      for await (const _ of result as AsyncIterable<unknown>);
    else await result;
  } catch (error) {
    expect(error).toBeInstanceOf(RxError);
    return error as RxError;
  }
  throw new Error('not refused');
}

describe('the library refuses an argument of the wrong kind with a coded error', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['openSession(123)', () => openSession(123 as never), /^path must be a path \(a string\), not number$/],
    ["openSession('')", () => openSession(''), /^path is empty/],
    ['repairSession(null)', () => repairSession(null as never), /^dir must be a path \(a string\), not null$/],
    ['salvageSession(5)', () => salvageSession(5 as never), /^dir must be a path/],
    [
      "salvageTranscript('t.jsonl', { to: 1 })",
      () => salvageTranscript('t.jsonl', { to: 1 as never }),
      /^to must be a path/,
    ],
    ['migrateJsonlToV4(undefined)', () => migrateJsonlToV4(undefined as never), /^transcript must be a path/],
    [
      "listSessions('x')",
      () => listSessions('x' as never, { platform: 'linux' }),
      /^roots must be a list of \{ kind, path \}/,
    ],
    ["indexSince('x')", () => indexSince('x' as never, { platform: 'linux' }), /^roots must be a list/],
    ['indexSince(roots) with no options', () => indexSince([], undefined as never), /^indexSince needs its options/],
    [
      "indexSince with platform 'beos'",
      () => indexSince([], { platform: 'beos' as never }),
      /^indexSince: platform must be one of linux, darwin, win32/,
    ],
    [
      'listSessions(roots) with no options',
      () => listSessions([], undefined as never),
      /^listSessions needs its options/,
    ],
    [
      'locateSession([1])',
      () => locateSession([1] as never, 'q', { platform: 'linux' } as never),
      /^each root must be an object/,
    ],
    [
      'search over roots [null]',
      () => search('q', { roots: [null] as never, platform: 'linux' }),
      /^each root must be/,
    ],
  ])('%s', async (_, call, words) => {
    const error = await refusal(call);
    expect(error.code).toBe('RX_INVALID_INPUT');
    expect(error.message).toMatch(words);
  });

  it.each([0, -1, 1.5, Number.NaN])('readSince with maxBatches %s', async (maxBatches) => {
    const source = fixture('plain-chat');
    const dir = await copySession(source.dir);
    const session = await openLogSession(dir);
    const error = await refusal(() => session.readSince(undefined, { maxBatches }));
    expect(error.code).toBe('RX_INVALID_INPUT');
    expect(error.message).toBe(`maxBatches must be a whole number of at least 1, not ${maxBatches}`);
    // One is a count it takes.
    expect((await session.readSince(undefined, { maxBatches: 1 })).batches).toHaveLength(1);
  });
});

describe('follow() refuses options it would not read as given', () => {
  it.each<[string, (cursor: unknown) => unknown, RegExp]>([
    ['a cursor in place of its options', (cursor) => cursor, /^follow takes its options, not a cursor/],
    ['a name it does not know', () => ({ pollms: 10 }), /^follow does not know the option "pollms"/],
    ['pollMs of 0', () => ({ pollMs: 0 }), /^pollMs must be a number of milliseconds above 0, not 0$/],
    ['pollMs of -5', () => ({ pollMs: -5 }), /^pollMs must be a number of milliseconds above 0/],
    ["pollMs of '100'", () => ({ pollMs: '100' }), /^pollMs must be a number of milliseconds above 0, not 100$/],
    ['pollMs of Infinity', () => ({ pollMs: Number.POSITIVE_INFINITY }), /^pollMs must be/],
    ["watch of 'no'", () => ({ watch: 'no' }), /^watch must be true or false, not string$/],
    ['a signal that is none', () => ({ signal: {} }), /^signal must be an AbortSignal, not object$/],
    ['a list', () => [], /^follow takes its options, \{ cursor, signal, pollMs, watch \}, not a list$/],
  ])('%s', async (_, options, words) => {
    const dir = await copySession(fixture('plain-chat').dir);
    const session = await openLogSession(dir);
    const { cursor } = await session.readSince();
    const error = await refusal(() => session.follow(options(cursor) as never));
    expect(error.code).toBe('RX_INVALID_INPUT');
    expect(error.message).toMatch(words);
  });
});
