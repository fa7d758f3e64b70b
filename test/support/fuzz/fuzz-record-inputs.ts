import { encodeFrame } from '../../../src/codec/frame.js';
import { sessionPathOf, type BaseSession } from './fuzz-bases.js';
import { DAMAGED, fileEntry, frameOffset, refsOf, replaced, withLog, type Draft, type Random } from './fuzz-drafts.js';
import {
  appended,
  beginRecord,
  eventRecord,
  isObject,
  messagesIn,
  messagesOfPayload,
  parsedPayload,
  RawJson,
  resealEnd,
  setOwn,
} from './fuzz-records.js';
import { CONTENT_REFUSED, type FuzzOptions } from './fuzz-inputs.js';

/** Valid frames around hostile JSON: changed records, deep and wide values, prototype keys, bad UTF-8 and bad refs. */

/** Raw JSON texts that strain a reader: types it does not expect, numbers JS cannot hold, prototype keys. */
const HOSTILE_JSON = [
  'null',
  'true',
  'false',
  '0',
  '-1',
  '-0',
  '1.5',
  '1e400',
  '-1e400',
  '9007199254740993',
  '18446744073709551615',
  '4294967295',
  '""',
  '" "',
  '"\\u0000"',
  '"\\ud800"',
  '[]',
  '{}',
  '[[[]]]',
  '{"__proto__":{"local_only":true,"role":"system"}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '"__proto__"',
  '"constructor"',
  '"0001-01-01T00:00:00Z"',
  '"2026-02-30T25:61:61Z"',
  '"=="',
  '"not base64!"',
  '"AAAA"',
];

const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
  'then',
  'length',
];

const SAMPLE_PAYLOADS: Record<string, unknown> = {
  'message/complete': { message: { role: 'user', id: 'fuzz-m1', content: 'hi' } },
  'message/upsert': { message: { role: 'assistant', id: 'fuzz-m1', content: 'hello' } },
  'message/retract': { messageIds: ['fuzz-m1'] },
  'history/replace': { messages: [{ role: 'system', id: 'fuzz-m0', content: 'system' }] },
  'model/context-replace': { messages: [{ role: 'system', id: 'fuzz-m0', content: 'system' }] },
  compaction: { messages: [], trigger: 'auto' },
  'legacy/import': { source: { path: 'old.jsonl' }, messages: [] },
  'session/title': { title: 'fuzz' },
  'session/config': { modelRef: 'mock/model' },
  'turn/start': {},
  'turn/end': { status: 'completed' },
  'assistant/attempt': { id: 'fuzz-a1', action: 'begin' },
};

const KINDS = [
  ...Object.keys(SAMPLE_PAYLOADS),
  'tool/call',
  'diagnostic',
  'fuzz/unknown',
  '',
  ' ',
  '\t',
  ...HOSTILE_KEYS,
];

const RECORD_MUTATIONS = [
  'value',
  'kind',
  'payload',
  'message field',
  'message field',
  'record type',
  'fresh record',
] as const;

/** The message fields rxstore reads (docs/format.md §8.1), and values that fit their type but not their sense. */
const MESSAGE_FIELDS: Record<string, string[]> = {
  role: ['""', '"constructor"', '"__proto__"', '"tool"'],
  id: ['""', '" x "', '"__proto__"'],
  origin: ['"host"', '""'],
  content: ['null', '""', '"Current workspace: \\"unterminated"'],
  raw_content: ['""'],
  tool_calls: [
    'null',
    '[]',
    '[{}]',
    '[{"id":"","name":"","arguments":"{"}]',
    '[{"function":{"name":"f","arguments":"[]"}}]',
  ],
  tool_call_id: ['""', '"__proto__"'],
  name: ['""'],
  // The first four lie past the Date range (±8.64e15 ms) yet are numbers JSON and zod accept.
  createdAt: ['8640000000000001', '-8640000000000001', '9007199254740991', '1e21', '-1', '0.5'],
  local_only: ['true', 'false'],
  tool_execution: ['{}', '{"exitCode":1e400}', '{"exitCode":-1}'],
};

/** Real batches with one to three records changed; most are resealed so the change gets past the digest. */
export function* randomRecords(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const batch = rand.pick(base.batches);
    const json = new RawJson();
    const records: unknown[] = base.frames
      .slice(batch.first, batch.last + 1)
      .map((frame) => JSON.parse(frame.record.toString('utf8')));
    const notes: string[] = [];
    // Mostly one change, so that most inputs get past the envelope checks to the layers behind them.
    for (let count = rand.pick([1, 1, 1, 2, 3]); count > 0; count -= 1) notes.push(mutateRecord(rand, records, json));
    const raws = records.map((record) => json.encode(record));
    const reseal = rand.next() < 0.85;
    if (reseal) raws[raws.length - 1] = resealEnd(records.at(-1), raws.slice(0, -1), json);
    const start = base.frames[batch.first]!.offset;
    const log = Buffer.concat([base.log.subarray(0, start), ...raws.map(encodeFrame), base.log.subarray(batch.end)]);
    yield withLog(base, `batch at ${start}${reseal ? ', resealed' : ''}: ${notes.join('; ')}`, log);
  }
}

/** Changes one record of `records` in place (or replaces it); says what it did. */
function mutateRecord(rand: Random, records: unknown[], json: RawJson): string {
  const mutation = rand.pick(RECORD_MUTATIONS);
  // A message field needs a record that holds messages; any other change takes any record.
  const withMessages = records.flatMap((record, index) => (messagesIn(record).length > 0 ? [index] : []));
  const at =
    mutation === 'message field' && withMessages.length > 0 ? rand.pick(withMessages) : rand.int(records.length);
  return `record ${at}: ${mutateAt(rand, records, at, mutation, json)}`;
}

function mutateAt(
  rand: Random,
  records: unknown[],
  at: number,
  mutation: (typeof RECORD_MUTATIONS)[number],
  json: RawJson,
): string {
  const record = records[at];
  const event = isObject(record) && isObject(record.event) ? record.event : undefined;
  switch (mutation) {
    case 'value':
      return mutateValue(rand, record, json);
    case 'kind': {
      if (!event) return mutateValue(rand, record, json);
      event.kind = rand.pick(KINDS);
      if (rand.next() < 0.5) event.optional = true;
      return `kind ${JSON.stringify(event.kind)}${event.optional ? ', optional' : ''}`;
    }
    case 'payload': {
      if (!event) return mutateValue(rand, record, json);
      const payload = parsedPayload(event) ?? structuredClone(SAMPLE_PAYLOADS[String(event.kind)] ?? {});
      const what = mutateValue(rand, payload, json);
      event.payload = json.encode(payload).toString('base64');
      delete event.payloadRef;
      return `payload ${what}`;
    }
    case 'message field': {
      const payload = event ? parsedPayload(event) : undefined;
      const messages = messagesOfPayload(payload);
      if (!event || messages.length === 0) return mutateValue(rand, record, json);
      const field = rand.pick(Object.keys(MESSAGE_FIELDS));
      const text = rand.next() < 0.8 ? rand.pick(MESSAGE_FIELDS[field]!) : rand.pick(HOSTILE_JSON);
      setOwn(rand.pick(messages), field, json.raw(text));
      event.payload = json.encode(payload).toString('base64');
      return `message ${field} = ${text}`;
    }
    case 'record type': {
      if (!isObject(record)) return mutateValue(rand, record, json);
      record.recordType = rand.pick([
        'batch/begin',
        'batch/event',
        'batch/end',
        'batch/abort',
        '',
        'BATCH/BEGIN',
        ...HOSTILE_KEYS,
      ]);
      return `recordType ${JSON.stringify(record.recordType)}`;
    }
    case 'fresh record':
      records[at] = randomJson(rand, 3);
      return 'replaced by random JSON';
  }
}

/** Sets, deletes or adds one value somewhere inside `value` (an object or array, changed in place). */
function mutateValue(rand: Random, value: unknown, json: RawJson): string {
  const target = rand.pick(containersIn(value));
  if (target === undefined) return 'nothing to change';
  const hostile = hostileValue(rand, json);
  if (Array.isArray(target)) {
    const at = rand.int(target.length + 1);
    target[at] = hostile.value;
    return `[${at}] = ${hostile.text}`;
  }
  const keys = Object.keys(target);
  const op = keys.length === 0 ? 'add' : rand.pick(['set', 'set', 'delete', 'add'] as const);
  if (op === 'delete') {
    const key = rand.pick(keys);
    delete target[key];
    return `delete ${key}`;
  }
  const key = op === 'set' ? rand.pick(keys) : rand.pick([...HOSTILE_KEYS, rand.text(1 + rand.int(8))]);
  setOwn(target, key, hostile.value);
  return `${key} = ${hostile.text}`;
}

function hostileValue(rand: Random, json: RawJson): { value: unknown; text: string } {
  const roll = rand.next();
  if (roll < 0.75) {
    const text = rand.pick(HOSTILE_JSON);
    return { value: json.raw(text), text };
  }
  if (roll < 0.9) {
    const text = rand.text(1 + rand.int(40));
    return { value: text, text: JSON.stringify(text) };
  }
  const length = 1 + rand.int(100_000);
  return { value: 'x'.repeat(length), text: `"x"×${length}` };
}

function randomJson(rand: Random, depth: number): unknown {
  const roll = rand.int(depth > 0 ? 6 : 4);
  if (roll === 0) return rand.pick([null, true, false]);
  if (roll === 1) return rand.int(2 ** 31) - 2 ** 30;
  if (roll === 2) return rand.text(rand.int(20));
  if (roll === 3) return rand.next();
  if (roll === 4) return Array.from({ length: rand.int(4) }, () => randomJson(rand, depth - 1));
  return Object.fromEntries(
    Array.from({ length: rand.int(5) }, () => [
      rand.pick([...HOSTILE_KEYS, 'recordType', 'event', 'kind', rand.text(3)]),
      randomJson(rand, depth - 1),
    ]),
  );
}

/** Deep nesting where a reader may recurse: a record, a record field, a payload, the manifest (docs/format.md §4). */
export function* deepJson(rand: Random, bases: readonly BaseSession[], options: FuzzOptions): Iterable<Draft> {
  const shapes = { arrays: ['[', '', ']'], objects: ['{"a":', '1', '}'], mixed: ['[{"a":', '1', '}]'] } as const;
  for (;;) {
    const base = rand.pick(bases);
    const shape = rand.pick(Object.keys(shapes) as (keyof typeof shapes)[]);
    const [open, inner, close] = shapes[shape];
    const deep = `${open.repeat(options.depth)}${inner}${close.repeat(options.depth)}`;
    const json = new RawJson();
    const place = rand.pick([
      'record',
      'record field',
      'payload',
      'message field',
      'legacy source',
      'optional event',
      'manifest',
      'identity',
    ] as const);
    const what = `${options.depth} nested ${shape} as ${place}`;
    switch (place) {
      case 'record': {
        const k = rand.int(base.frames.length + 1);
        const offset = frameOffset(base, k);
        yield withLog(
          base,
          `${what} at ${offset}`,
          Buffer.concat([base.log.subarray(0, offset), encodeFrame(Buffer.from(deep)), base.log.subarray(offset)]),
        );
        break;
      }
      case 'record field':
        yield appended(base, what, [
          eventRecord(base.nextSeq, 'session/title', { title: 'deep' }, json, {
            recordFields: { fuzz: json.raw(deep) },
          }),
        ]);
        break;
      case 'payload':
        yield appended(base, what, [
          eventRecord(base.nextSeq, rand.pick(Object.keys(SAMPLE_PAYLOADS)), json.raw(deep), json),
        ]);
        break;
      case 'message field':
        yield appended(base, what, [
          eventRecord(
            base.nextSeq,
            'message/complete',
            {
              message: {
                role: 'user',
                id: 'fuzz-deep',
                content: 'x',
                [rand.pick(['content', 'tool_calls', 'extra'])]: json.raw(deep),
              },
            },
            json,
          ),
        ]);
        break;
      case 'legacy source':
        yield appended(base, what, [
          eventRecord(
            base.nextSeq,
            'legacy/import',
            { source: { path: 'x', nested: json.raw(deep) }, messages: [] },
            json,
          ),
        ]);
        break;
      case 'optional event':
        yield appended(base, what, [eventRecord(base.nextSeq, 'fuzz/deep', json.raw(deep), json, { optional: true })]);
        break;
      case 'manifest':
      case 'identity': {
        const path = `${sessionPathOf(base.id)}/${place === 'manifest' ? 'manifest.json' : 'storage.identity.json'}`;
        const file = base.entries.get(path);
        const text = file?.kind === 'file' ? file.bytes.toString('utf8') : '{}';
        const bytes = Buffer.from(text.replace('{', `{"fuzz":${deep},`));
        yield { ...withLog(base, what, base.log), entries: replaced(base.entries, path, fileEntry(bytes)) };
        break;
      }
    }
  }
}

/** Long arrays and many keys in one valid record (up to the 8 MiB frame budget). */
export function* wideJson(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const json = new RawJson();
    // Past V8's limit on spread arguments (about 123k), short of 2 s of schema checks when all goes well.
    const count = 125_000 + rand.int(15_000);
    const kind = rand.pick([
      'history/replace',
      'model/context-replace',
      'compaction',
      'legacy/import',
      'message/retract',
      'message keys',
      'record array',
    ] as const);
    const messages = json.raw(`[${Array(count).fill('{"role":"user"}').join(',')}]`);
    let records: Buffer[];
    switch (kind) {
      case 'message/retract':
        records = [
          eventRecord(
            base.nextSeq,
            kind,
            { messageIds: json.raw(`[${Array.from({ length: count }, (_, i) => `"m${i}"`).join(',')}]`) },
            json,
          ),
        ];
        break;
      case 'message keys':
        records = [
          eventRecord(
            base.nextSeq,
            'message/complete',
            { message: json.raw(`{"role":"user",${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`) },
            json,
          ),
        ];
        break;
      case 'record array':
        records = [
          eventRecord(base.nextSeq, 'session/title', { title: 'wide' }, json, {
            recordFields: { fuzz: json.raw(`[${Array(count).fill('0').join(',')}]`) },
          }),
        ];
        break;
      case 'legacy/import':
        records = [eventRecord(base.nextSeq, kind, { source: { path: 'old.jsonl' }, messages }, json)];
        break;
      default:
        records = [eventRecord(base.nextSeq, kind, { messages }, json)];
    }
    yield appended(base, `${kind} with ${count} items`, records);
  }
}

/** Prototype keys as record keys, payload keys, kinds, roles and ids: rxstore must count and store them as data. */
export function* protoKeys(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const json = new RawJson();
    const key = rand.pick(HOSTILE_KEYS);
    const value = () => json.raw(rand.pick(HOSTILE_JSON));
    const seq = base.nextSeq;
    const place = rand.pick([
      'kind',
      'role',
      'message id',
      'record key',
      'event key',
      'payload key',
      'message key',
      'tool call',
      'turn id',
      'manifest key',
    ] as const);
    const message = (extra: Record<string, unknown> = {}) => ({
      role: 'user',
      id: `fuzz-${seq}`,
      content: 'hi',
      ...extra,
    });
    switch (place) {
      case 'kind':
        // Two events, so a count that is not a number shows.
        yield appended(base, `optional kind ${key} twice`, [
          eventRecord(seq, key, { a: 1 }, json, { optional: true }),
          eventRecord(seq + 1, key, undefined, json, { optional: true }),
        ]);
        break;
      case 'role':
        yield appended(base, `role ${key} twice`, [
          eventRecord(seq, 'message/complete', { message: message({ role: key }) }, json),
          eventRecord(
            seq + 1,
            'message/complete',
            { message: { ...message({ role: key }), id: `fuzz-${seq}b` } },
            json,
          ),
        ]);
        break;
      case 'message id':
        yield appended(base, `message id ${key}, then retracted`, [
          eventRecord(seq, 'message/complete', { message: message({ id: key }) }, json),
          eventRecord(seq + 1, 'message/retract', { messageIds: [key] }, json),
        ]);
        break;
      case 'record key':
        yield appended(base, `record key ${key}`, [
          eventRecord(seq, 'session/title', { title: 't' }, json, {
            recordFields: Object.fromEntries([[key, value()]]),
          }),
        ]);
        break;
      case 'event key':
        yield appended(base, `event key ${key}`, [
          eventRecord(seq, 'session/title', { title: 't' }, json, {
            eventFields: Object.fromEntries([[key, value()]]),
          }),
        ]);
        break;
      case 'payload key':
        yield appended(base, `payload key ${key}`, [
          eventRecord(
            seq,
            rand.pick(Object.keys(SAMPLE_PAYLOADS)),
            Object.fromEntries([
              [key, value()],
              ['title', 't'],
              ['status', 'completed'],
            ]),
            json,
          ),
        ]);
        break;
      case 'message key':
        yield appended(base, `message key ${key}`, [
          eventRecord(
            seq,
            'message/complete',
            { message: Object.fromEntries([...Object.entries(message()), [key, value()]]) },
            json,
          ),
        ]);
        break;
      case 'tool call':
        yield appended(base, `tool call id and name ${key}`, [
          eventRecord(
            seq,
            'message/complete',
            {
              message: message({
                role: 'assistant',
                content: '',
                tool_calls: [
                  Object.fromEntries([
                    ['id', key],
                    ['name', key],
                    ['arguments', '{}'],
                    [key, value()],
                  ]),
                ],
              }),
            },
            json,
          ),
        ]);
        break;
      case 'turn id':
        yield appended(
          base,
          `turn id ${key}`,
          [eventRecord(seq, 'turn/start', {}, json), eventRecord(seq + 1, 'turn/end', { status: 'completed' }, json)],
          { turnId: key, operationId: key, commitId: key },
        );
        break;
      case 'manifest key': {
        const path = `${sessionPathOf(base.id)}/manifest.json`;
        const manifest = base.entries.get(path);
        const text = manifest?.kind === 'file' ? manifest.bytes.toString('utf8') : '{}';
        const bytes = Buffer.from(text.replace('{', `{${JSON.stringify(key)}:${rand.pick(HOSTILE_JSON)},`));
        yield {
          ...withLog(base, `manifest key ${key}`, base.log),
          entries: replaced(base.entries, path, fileEntry(bytes)),
        };
        break;
      }
    }
  }
}

const INVALID_UTF8 = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe4, 0xbd],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xfe, 0xfe, 0xff],
];

/** Bytes that are not UTF-8 inside JSON strings: of records, of payloads, of the manifest. */
export function* badUtf8(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const bad = Buffer.from(rand.pick(INVALID_UTF8));
    const place = rand.pick(['record', 'payload', 'kind', 'manifest'] as const);
    const what = `${bad.toString('hex')} in ${place}`;
    const json = new RawJson();
    switch (place) {
      case 'record': {
        const batch = rand.pick(base.batches);
        const raws = base.frames.slice(batch.first, batch.last + 1).map((frame) => frame.record);
        const at = rand.int(raws.length - 1);
        raws[at] = insertInString(rand, raws[at]!, bad);
        raws[raws.length - 1] = resealEnd(JSON.parse(raws.at(-1)!.toString('utf8')), raws.slice(0, -1), json);
        const start = base.frames[batch.first]!.offset;
        yield withLog(
          base,
          `${what} ${at} of batch at ${start}, resealed`,
          Buffer.concat([base.log.subarray(0, start), ...raws.map(encodeFrame), base.log.subarray(batch.end)]),
        );
        break;
      }
      case 'payload':
        yield appended(base, what, [
          eventRecord(
            base.nextSeq,
            'message/complete',
            json.raw(
              Buffer.concat([
                Buffer.from('{"message":{"role":"user","id":"fuzz-utf8","content":"a'),
                bad,
                Buffer.from('b"}}'),
              ]),
            ),
            json,
          ),
        ]);
        break;
      case 'kind':
        yield appended(base, what, [
          eventRecord(
            base.nextSeq,
            json.raw(Buffer.concat([Buffer.from('"fuzz/'), bad, Buffer.from('"')])),
            { a: 1 },
            json,
            { optional: true },
          ),
        ]);
        break;
      case 'manifest': {
        const path = `${sessionPathOf(base.id)}/manifest.json`;
        const manifest = base.entries.get(path);
        if (manifest?.kind !== 'file') continue;
        yield {
          ...withLog(base, what, base.log),
          entries: replaced(base.entries, path, fileEntry(insertInString(rand, manifest.bytes, bad))),
        };
        break;
      }
    }
  }
}

const SIXTY_FOUR = 'ab'.repeat(32);

/** Digests a path could be built from: only 64 lower-case hex digits may reach the file system (docs/format.md §6.1). */
const BAD_DIGESTS = (real: string) => [
  `../${real.slice(3)}`,
  `../../../../../../../../../../../../../../../../../../../../etc/passwd`.slice(0, 64),
  real.toUpperCase(),
  real.slice(0, 63),
  `${real}0`,
  '',
  'g'.repeat(64),
  `${real.slice(0, 32)}/${real.slice(33)}`,
  `/${real.slice(1)}`,
  `${real.slice(0, 60)}\u0000abc`,
  `..\\${real.slice(3)}`,
  `${real.slice(0, 63)}\n`,
  `${real.slice(0, 4)}/../../${real.slice(11)}`,
  ` ${real.slice(1)}`,
];

const REF_VARIANTS = [
  'malformed digest',
  'missing object',
  'wrong bytes',
  'malformed bytes',
  'malformed index digest',
  'wrong block size',
] as const;

/** payloadRefs with hostile digests, sizes and index fields, in resealed batches so they reach the content store. */
export function* badDigests(rand: Random, bases: readonly BaseSession[]): Iterable<Draft> {
  for (;;) {
    const base = rand.pick(bases);
    const refs = refsOf(base);
    // Only a base with content objects can have a ref that is right but for one field.
    const variant = refs.length > 0 ? rand.pick(REF_VARIANTS) : rand.pick(REF_VARIANTS.slice(0, 2));
    const real = refs.length > 0 ? rand.pick(refs) : { digest: SIXTY_FOUR, bytes: 10 };
    const ref: Record<string, unknown> = { ...real };
    switch (variant) {
      case 'malformed digest':
        ref.digest = rand.pick(BAD_DIGESTS(real.digest));
        break;
      case 'missing object':
        ref.digest = SIXTY_FOUR;
        break;
      case 'wrong bytes':
        // 2^53 + 2 is a size Go reads (a uint64), though no object has it.
        ref.bytes = rand.pick([0, real.bytes - 1, real.bytes + 1, 0xffffffff, 2 ** 53 + 2]);
        break;
      case 'malformed bytes':
        ref.bytes = rand.pick([-1, 1.5]);
        break;
      case 'malformed index digest':
        ref.indexDigest = rand.pick(BAD_DIGESTS(real.digest));
        break;
      case 'wrong block size':
        ref.integrityBlockBytes = rand.pick([0, 1, 2 ** 31, 1048575]);
        break;
    }
    const json = new RawJson();
    const draft = appended(base, `payloadRef with ${variant}: ${JSON.stringify(ref)}`, [
      eventRecord(base.nextSeq, 'message/complete', undefined, json, { eventFields: { payloadRef: ref } }),
    ]);
    // A malformed ref is refused by the codec before any path is built from it (docs/format.md §6.1).
    const malformed = variant.startsWith('malformed');
    const eventOffset = base.log.length + encodeFrame(beginRecord(base.nextSeq, 1)).length;
    yield {
      ...draft,
      expect: malformed
        ? { codecError: { code: DAMAGED, offset: eventOffset }, sessionOpens: false }
        : { sessionOpens: false, sessionProblem: CONTENT_REFUSED },
    };
  }
}

/** `bytes` spliced into a random JSON string of `json` (past its opening quote). */
function insertInString(rand: Random, json: Buffer, bytes: Buffer): Buffer {
  const inside: number[] = [];
  let open = false;
  for (let at = 0; at < json.length; at += 1) {
    if (json[at] === 0x5c && open) at += 1;
    else if (json[at] === 0x22) open = !open;
    else if (open) inside.push(at);
  }
  const at = inside.length > 0 ? rand.pick(inside) : 0;
  return Buffer.concat([json.subarray(0, at), bytes, json.subarray(at)]);
}

function containersIn(
  value: unknown,
  found: (Record<string, unknown> | unknown[])[] = [],
  depth = 0,
): (Record<string, unknown> | unknown[])[] {
  if (depth > 12 || found.length > 200 || typeof value !== 'object' || value === null) return found;
  found.push(value as Record<string, unknown> | unknown[]);
  for (const child of Object.values(value)) containersIn(child, found, depth + 1);
  return found;
}
