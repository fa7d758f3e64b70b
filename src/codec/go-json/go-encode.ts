import type * as z from 'zod';
import { goTypeOf, type GoType } from './go-decode.js';
import { isJsonObject, setOwnKey } from './json-object.js';

/**
 * A value decoded by a schema of the Go building blocks (go-decode.ts), as Go's `encoding/json` writes it again:
 * a struct's fields in the struct's order, each written even when empty unless it is `omitempty`, a zero value
 * for each field the JSON did not set (`""`, 0, false, `null` for a nil pointer, slice, map or interface), a
 * map's keys sorted, an array of exactly its length. Serialised with `goJson`, it is the bytes Reasonix writes for
 * what it decoded (docs/format.md §8.1): a JSONL transcript's messages as its migration stores them, and the
 * legacy ids hashed over them.
 */
export function goEncoded(schema: z.ZodType, value: unknown): unknown {
  const type = typeOf(schema);
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'int':
      return typeof value === 'number' ? value : 0;
    case 'bool':
      return value === true;
    case 'raw':
    case 'raw message':
      return value === undefined ? null : value;
    case 'pointer':
      return value === undefined || value === null ? null : goEncoded(type.to, value);
    case 'slice':
      return Array.isArray(value) ? value.map((item) => goEncoded(type.of, item)) : null;
    case 'array':
      return Array.from({ length: type.length }, (_, at) =>
        goEncoded(type.of, Array.isArray(value) ? value[at] : undefined),
      );
    case 'map': {
      if (!isJsonObject(value)) return null;
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value).sort(byUtf8)) setOwnKey(out, key, goEncoded(type.of, value[key]));
      return out;
    }
    case 'struct':
      return encodedStruct(type, isJsonObject(value) ? value : {});
  }
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

function encodedStruct(type: StructType, value: Record<string, unknown>): unknown {
  const out: Record<string, unknown> = {};
  for (const { field, schema, type: fieldType, always } of fieldsOf(type)) {
    const given = Object.hasOwn(value, field) ? value[field] : undefined;
    if (!always && isEmpty(fieldType, given)) continue;
    setOwnKey(out, field, goEncoded(schema, given));
  }
  return out;
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
