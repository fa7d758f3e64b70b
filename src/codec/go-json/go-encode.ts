import type * as z from 'zod';
import { fold, goTypeOf, type GoType } from './go-decode.js';
import { parseGoJsonText } from './go-text.js';
import { isJsonObject, setOwnKey } from './json-object.js';
import { compactJson, type JsonSpan } from './json-spans.js';
import { jsonText } from './json-text.js';
import { RawJson } from './raw-json.js';

/**
 * A value decoded by a schema of the Go building blocks (go-decode.ts), as Go's `encoding/json` writes it again:
 * a struct's fields in the struct's order, each written even when empty unless it is `omitempty`, a zero value
 * for each field the JSON did not set (`""`, 0, false, `null` for a nil pointer, slice, map or interface), a
 * map's keys sorted, an array of exactly its length. Serialised with `goJson`, it is the bytes Reasonix writes for
 * what it decoded (docs/format.md §8.1): a JSONL transcript's messages as its migration stores them, and the
 * legacy ids hashed over them.
 */
export function goEncoded(schema: z.ZodType, value: unknown): unknown {
  return encoded(schema, value, undefined);
}

/**
 * `goEncoded`, and beside it the value Go writes when `source` is the text the value was parsed from: a
 * json.RawMessage field holds the text it was read from, compacted (its escapes, number forms, key order and keys
 * written twice as they were; docs/format.md §17.1), and so does a whole number past 2^53 (its digits), each as a
 * `RawJson` that `goJson` writes as it is. A text is taken only where it is what the field holds (a field merged
 * from two objects' keys keeps its value).
 */
export function goEncodedAsWritten(
  schema: z.ZodType,
  value: unknown,
  source: JsonSpan,
): { value: unknown; written: unknown } {
  const found: RawText[] = [];
  const plain = encoded(schema, value, { spans: () => [source], found });
  return { value: plain, written: found.length === 0 ? plain : withRawTexts(plain, found) };
}

/** A raw field's text as written, and where the field is in the encoded value. */
type RawText = { path: readonly (string | number)[]; raw: RawJson };

/**
 * Where the value being encoded was written in the source text, found only if a raw field needs it, and its place:
 * each text Go decoded into it, in order (a key written twice, or in two cases, decodes into what the first set).
 */
interface SourceCursor {
  spans: () => readonly JsonSpan[];
  /** The cursor of the value holding this one, and this one's key or index in it; none for the root. */
  outer?: { cursor: SourceCursor; step: string | number };
  found: RawText[];
}

/** The cursor of a value inside the one at `at`, its texts found in each of the outer one's by `find` when first asked for. */
function inside(
  at: SourceCursor | undefined,
  step: string | number,
  find: (span: JsonSpan) => readonly JsonSpan[],
): SourceCursor | undefined {
  if (at === undefined) return undefined;
  let spans: readonly JsonSpan[] | undefined;
  return {
    spans: () => {
      spans ??= at.spans().flatMap(find);
      return spans;
    },
    outer: { cursor: at, step },
    found: at.found,
  };
}

/** The keys and indexes from the root to the value at `at`. */
function pathOf(at: SourceCursor): (string | number)[] {
  const path: (string | number)[] = [];
  for (let cursor = at; cursor.outer !== undefined; cursor = cursor.outer.cursor) path.unshift(cursor.outer.step);
  return path;
}

function encoded(schema: z.ZodType, value: unknown, at: SourceCursor | undefined): unknown {
  const type = typeOf(schema);
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'int':
      if (at !== undefined && typeof value === 'number') noteWholeNumberText(at, value);
      return typeof value === 'number' ? value : 0;
    case 'bool':
      return value === true;
    case 'raw':
      return value === undefined ? null : value;
    case 'raw message':
      if (at !== undefined && value !== undefined) noteRawText(at, value);
      return value === undefined ? null : value;
    case 'pointer':
      return value === undefined || value === null ? null : encoded(type.to, value, at);
    case 'slice':
      return Array.isArray(value)
        ? value.map((item, index) =>
            encoded(
              type.of,
              item,
              placeNeeded(typeOf(type.of), item)
                ? inside(at, index, (span) => span.items().slice(index, index + 1))
                : undefined,
            ),
          )
        : null;
    case 'array':
      return Array.from({ length: type.length }, (_, index) =>
        encoded(
          type.of,
          Array.isArray(value) ? value[index] : undefined,
          inside(at, index, (span) => span.items().slice(index, index + 1)),
        ),
      );
    case 'map': {
      if (!isJsonObject(value)) return null;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort(byUtf8))
        setOwnKey(
          out,
          key,
          encoded(
            type.of,
            value[key],
            inside(at, key, (span) => span.entries().flatMap((entry) => (entry.key === key ? [entry.span] : []))),
          ),
        );
      return out;
    }
    case 'struct':
      return encodedStruct(type, isJsonObject(value) ? value : {}, at);
  }
}

/** Keeps a raw field's text as written (the last text for it: Go's json.RawMessage takes each in turn), where it holds what the field does. */
function noteRawText(at: SourceCursor, value: unknown): void {
  const span = at.spans().at(-1);
  if (span === undefined) return;
  const text = compactJson(span.text);
  // Compared as JSON text: a raw field may nest 10,000 levels, past what a recursive comparison walks.
  if (jsonText(parseGoJsonText(text)) === jsonText(value)) at.found.push({ path: pathOf(at), raw: new RawJson(text) });
}

/**
 * Keeps a whole number's digits as written where a double does not hold them (past 2^53): Go's int64 and uint64
 * hold every digit and write them again, where the double written again would be another number, or one past
 * the type's range (2^63 − 1 read as 2^63).
 */
function noteWholeNumberText(at: SourceCursor, value: number): void {
  if (Number.isSafeInteger(value)) return;
  const text = at.spans().at(-1)?.text;
  if (text !== undefined && /^-?[0-9]+$/.test(text) && Number(text) === value)
    at.found.push({ path: pathOf(at), raw: new RawJson(text) });
}

/** `plain` with each raw field's text in its place, the objects and lists on the way to one copied, the rest shared. */
function withRawTexts(plain: unknown, found: readonly RawText[]): unknown {
  const copied = new WeakSet<object>();
  const copy = (value: unknown): Record<string | number, unknown> => {
    const made = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
    copied.add(made);
    return made;
  };
  const root = copy(plain);
  for (const { path, raw } of found) {
    let node = root;
    for (const step of path.slice(0, -1)) {
      const next = node[step];
      node = copied.has(next as object) ? (next as Record<string | number, unknown>) : (node[step] = copy(next));
    }
    node[path.at(-1)!] = raw;
  }
  return root;
}

type StructType = Extract<GoType, { kind: 'struct' }>;

/** A struct's fields as the encoder walks them, worked out once a struct (every message has 39). */
interface EncodedField {
  field: string;
  schema: z.ZodType;
  type: GoType;
  always: boolean;
}

const fieldsOfStructs = new WeakMap<StructType, readonly EncodedField[]>();

function fieldsOf(type: StructType): readonly EncodedField[] {
  let fields = fieldsOfStructs.get(type);
  if (fields === undefined) {
    const always = type.alwaysWritten;
    if (always === undefined) throw new Error('a Go struct encoded without knowing its omitempty fields');
    fields = Object.entries(type.shape).map(([field, schema]) => ({
      field,
      schema,
      type: typeOf(schema),
      always: always.has(field),
    }));
    fieldsOfStructs.set(type, fields);
  }
  return fields;
}

function encodedStruct(type: StructType, value: Record<string, unknown>, at: SourceCursor | undefined): unknown {
  const out: Record<string, unknown> = {};
  for (const { field, schema, type: fieldType, always } of fieldsOf(type)) {
    const given = Object.hasOwn(value, field) ? value[field] : undefined;
    if (!always && isEmpty(fieldType, given)) continue;
    setOwnKey(
      out,
      field,
      encoded(
        schema,
        given,
        placeNeeded(fieldType, given) ? inside(at, field, (span) => fieldSpans(span, type, field)) : undefined,
      ),
    );
  }
  return out;
}

/** The texts a struct's field was decoded from: those of each key Go takes for it (its name, else in another case). */
function fieldSpans(span: JsonSpan, type: StructType, field: string): JsonSpan[] {
  const found: JsonSpan[] = [];
  for (const entry of span.entries()) {
    const named = Object.hasOwn(type.shape, entry.key) ? entry.key : foldedFieldsOf(type).get(fold(entry.key));
    if (named === field) found.push(entry.span);
  }
  return found;
}

/**
 * Whether a value's text may be needed: it holds a raw field, or it is a whole number a double does not hold
 * exactly. A string, a bool, `any` or a small whole number never needs it, and most values are those.
 */
function placeNeeded(type: GoType, value: unknown): boolean {
  if (type.kind === 'int') return typeof value === 'number' && !Number.isSafeInteger(value);
  return type.kind !== 'string' && type.kind !== 'bool' && type.kind !== 'raw';
}

const foldedFields = new WeakMap<StructType, ReadonlyMap<string, string>>();

/** A struct's fields by their folded names, as Go matches a key in another case. */
function foldedFieldsOf(type: StructType): ReadonlyMap<string, string> {
  let fields = foldedFields.get(type);
  if (fields === undefined) {
    fields = new Map(Object.keys(type.shape).map((field) => [fold(field), field]));
    foldedFields.set(type, fields);
  }
  return fields;
}

/**
 * Go's `omitempty`: false, 0, an empty string, a nil pointer or interface, and a nil or empty slice or map are left
 * out; a struct never is, nor an array of some length, nor a json.RawMessage holding any text (`null` included).
 */
function isEmpty(type: GoType, value: unknown): boolean {
  switch (type.kind) {
    case 'string':
      return typeof value !== 'string' || value === '';
    case 'int':
      return typeof value !== 'number' || value === 0;
    case 'bool':
      return value !== true;
    case 'raw':
      return value === undefined || value === null;
    case 'raw message':
      return value === undefined;
    case 'pointer':
      return value === undefined || value === null;
    case 'slice':
      return !Array.isArray(value) || value.length === 0;
    case 'map':
      return !isJsonObject(value) || Object.keys(value).length === 0;
    case 'array':
      return type.length === 0;
    case 'struct':
      return false;
  }
}

function typeOf(schema: z.ZodType): GoType {
  const type = goTypeOf(schema);
  if (type === undefined) throw new Error('a schema that is not a Go type cannot be encoded as Go encodes it');
  return type;
}

/** Go sorts a map's keys as byte strings: UTF-8's order, which UTF-16's differs from past U+FFFF. */
function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
