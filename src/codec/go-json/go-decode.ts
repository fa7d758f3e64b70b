import * as z from 'zod';
import { isJsonObject, setOwnKey } from './json-object.js';
import { repeatedKeysOf, type WrittenKeys, writtenKeys } from './repeated-keys.js';

/**
 * Building blocks that decode JSON the way Go's `encoding/json` decodes it into Reasonix 1.38.11's
 * structs (docs/format.md §7.2, measured against the binary): a key names a field exactly or, failing that,
 * case-insensitively; `null` makes a pointer, slice, map or interface nil and leaves any other field as it is; a value of the wrong JSON type is
 * refused; keys no field has are refused where Reasonix decodes strictly and dropped where it
 * decodes leniently (its JSONL loader); `keep` ignores them as Go does but leaves them in the value, for a
 * file shown to a person as it is.
 */
export type UnknownKeys = 'refuse' | 'drop' | 'keep';

/** Go folds keys to upper case ASCII; `ſ` folds to `S` and the Kelvin sign to `K`. */
export function fold(key: string): string {
  return key
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k')
    .toLowerCase();
}

/** The fields of a Go struct, each optional. */
type OptionalFields<S extends Record<string, z.ZodType>> = { [K in keyof S]: z.ZodOptional<S[K]> };
/** The object schema a `goStruct` checks its fields with, by what it does with unknown keys. */
type StructObject<S extends Record<string, z.ZodType>, U extends UnknownKeys> = z.ZodObject<
  OptionalFields<S>,
  U extends 'refuse' ? z.core.$strict : U extends 'keep' ? z.core.$loose : z.core.$strip
>;

/**
 * The Go type a schema of these building blocks decodes into, as Go's encoder needs it to write the value
 * again (`goEncoded`): kept beside each schema made here, by the schema.
 */
export type GoType =
  | { kind: 'string' | 'int' | 'bool' | 'raw' | 'raw message' }
  | { kind: 'pointer'; to: z.ZodType }
  | { kind: 'slice' | 'map'; of: z.ZodType }
  | { kind: 'array'; of: z.ZodType; length: number }
  | {
      kind: 'struct';
      shape: Record<string, z.ZodType>;
      alwaysWritten: ReadonlySet<string> | undefined;
      /** The JSON object Go holds once it decoded `item` into the struct it decoded from `held`. */
      decodedInto: (held: Record<string, unknown>, item: Record<string, unknown>) => Record<string, unknown>;
    };

const goTypes = new WeakMap<z.ZodType, GoType>();

/** `schema`, known to decode into `type`. */
function typed<T extends z.ZodType>(schema: T, type: GoType): T {
  goTypes.set(schema, type);
  return schema;
}

/** The Go type `schema` decodes into; undefined for a schema not made by these building blocks. */
export function goTypeOf(schema: z.ZodType): GoType | undefined {
  return goTypes.get(schema);
}

/** `schema`, decoding into the Go type `as` decodes into: a lazy schema standing for the one it makes. */
export function sameGoType<T extends z.ZodType>(schema: T, as: z.ZodType): T {
  const type = goTypes.get(as);
  return type === undefined ? schema : typed(schema, type);
}

/**
 * A Go struct: the fields of `shape`, each optional (absent or `null` is the zero value). `alwaysWritten`, the
 * fields Go writes even when empty (those without `omitempty`), is what Go's encoder needs of it (`goEncoded`);
 * a struct only decoded does without.
 */
export function goStruct<S extends Record<string, z.ZodType>, U extends UnknownKeys>(
  shape: S,
  unknownKeys: U,
  alwaysWritten?: readonly (keyof S & string)[],
) {
  const byFold = new Map(Object.keys(shape).map((field) => [fold(field), field]));
  // Go sets a pointer, slice, map or interface to nil on `null`; any other field keeps what it holds.
  const nilable = new Set(
    Object.keys(shape).filter((field) => {
      const kind = goTypes.get(shape[field]!)?.kind;
      return kind === undefined ? shape[field] instanceof z.ZodNullable : NULL_IS_NIL.has(kind);
    }),
  );
  // A json.RawMessage takes `null` as its text, four bytes, which Go then counts as present and writes again.
  const rawMessages = new Set(Object.keys(shape).filter((field) => shape[field] === goRawMessage));
  const fields = Object.fromEntries(
    Object.entries(shape).map(([field, schema]) => [field, schema.optional()]),
  ) as OptionalFields<S>;
  const object = (
    unknownKeys === 'refuse'
      ? z.strictObject(fields)
      : unknownKeys === 'keep'
        ? z.looseObject(fields)
        : z.object(fields)
  ) as StructObject<S, U>;
  /** Applies an object's keys, as written, from the `at`th on to `named`, in order, as Go decodes them into its fields. */
  const apply = (named: Record<string, unknown>, { keys, values }: WrittenKeys, at: number) => {
    // Fields whose value Go refused: it says so whatever a later key for the field holds.
    let refused: Set<string> | undefined;
    for (; at < keys.length; at += 1) {
      const key = keys[at]!;
      const item = values[at];
      const field = Object.hasOwn(shape, key) ? key : byFold.get(fold(key));
      if (field === undefined) {
        // Defined, not assigned: `named.__proto__ = {…}` would lend its fields to the struct, where Go ignores the key.
        setOwnKey(named, key, item);
        continue;
      }
      if (refused?.has(field)) continue;
      // A second key for the field (again, or in another case): what the first one set is checked, then decoded into.
      const again = Object.hasOwn(named, field);
      if (again && !shape[field]!.safeParse(named[field]).success) (refused ??= new Set()).add(field);
      else if (item !== null) named[field] = again ? decodedInto(shape[field]!, named[field], item) : item;
      else if (rawMessages.has(field)) named[field] = null;
      else if (nilable.has(field)) delete named[field];
    }
    return named;
  };
  const struct = z.preprocess((value) => {
    // `null` leaves a struct as it was: all zero values.
    if (value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const input = value as Record<string, unknown>;
    const repeated = repeatedKeysOf(input);
    if (repeated !== undefined) return apply({}, repeated, 0);
    const keys = Object.keys(input);
    // The keys up to the first that names a field otherwise or holds null pass as they are; most
    // objects have no such key and are not copied at all.
    let at = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: how many leading keys pass without a copy: the copy holds the same keys and values (speed only)
    while (at < keys.length && Object.hasOwn(shape, keys[at]!) && input[keys[at]!] !== null) at += 1;
    // Stryker disable next-line ConditionalExpression: how many leading keys pass without a copy: the copy holds the same keys and values (speed only)
    if (at === keys.length) return input;
    const named: Record<string, unknown> = {};
    for (let before = 0; before < at; before += 1) named[keys[before]!] = input[keys[before]!];
    return apply(named, { keys, values: keys.map((key) => input[key]) }, at);
  }, object);
  return typed(struct, {
    kind: 'struct',
    shape,
    alwaysWritten: alwaysWritten === undefined ? undefined : new Set(alwaysWritten),
    decodedInto: (held, item) => apply(apply({}, writtenKeys(held), 0), writtenKeys(item), 0),
  });
}

/**
 * The JSON value Go holds once it decoded `item` into a field that already held what it decoded from `held`
 * (one object's key and another in another case naming the same field; measured with Reasonix 1.38.11): a
 * struct, or the one a pointer points to, takes the item's fields over its own, each decoded into what it
 * held; a slice's elements are decoded into its elements at the same places, its length the item's; a map
 * takes the item's keys over its own; anything else is the item. `null` leaves what a slice element held.
 */
function decodedInto(schema: z.ZodType, held: unknown, item: unknown): unknown {
  const type = goTypes.get(schema);
  if (type === undefined || held === null || held === undefined) return item;
  switch (type.kind) {
    case 'pointer':
      return decodedInto(type.to, held, item);
    case 'struct':
      return isJsonObject(held) && isJsonObject(item) ? type.decodedInto(held, item) : item;
    case 'slice':
      return Array.isArray(held) && Array.isArray(item) ? sliceDecodedInto(type.of, held, item) : item;
    case 'array':
      // Each element decoded into the one at its place: `null` leaves it; those past the item's are zero.
      return Array.isArray(held) && Array.isArray(item)
        ? item.map((each: unknown, at) => (each === null && at < held.length ? held[at] : each))
        : item;
    case 'map': {
      if (!isJsonObject(held) || !isJsonObject(item)) return item;
      const merged: Record<string, unknown> = {};
      for (const key of Object.keys(held)) setOwnKey(merged, key, held[key]);
      for (const key of Object.keys(item)) setOwnKey(merged, key, item[key]);
      return merged;
    }
    default:
      return item;
  }
}

/** The kinds `null` makes nil, as a field (a json.RawMessage keeps it as its text). */
const NULL_IS_NIL: ReadonlySet<GoType['kind']> = new Set(['pointer', 'slice', 'map', 'raw']);

/** The kinds `null` makes nil as a slice element. */
const NIL_ELEMENTS: ReadonlySet<GoType['kind']> = new Set(['pointer', 'slice', 'map', 'raw', 'raw message']);

/** A slice's elements up to its capacity, kept beside it while one object's keys are decoded. */
const BACKING = Symbol('the elements of a Go slice up to its capacity');

/**
 * `sliceDecodedInto`'s slice: Go decodes a JSON list into a slice's elements in place, its length set to the
 * list's; elements past that length stay in the slice's array, up to its capacity, and a longer list decoded
 * later decodes into them again (a list decoded into a nil slice grows it one element at a time, doubling its
 * capacity; an empty list makes a new empty slice). `null` leaves an element as it was, but for a pointer,
 * slice, map or interface, which it makes nil.
 */
function sliceDecodedInto(element: z.ZodType, held: unknown[], item: unknown[]): unknown[] {
  if (item.length === 0) return withBacking([], []);
  const kind = goTypes.get(element)?.kind;
  const nilElement = kind !== undefined && NIL_ELEMENTS.has(kind);
  let backing = backingOf(held);
  const slice: unknown[] = [];
  for (let at = 0; at < item.length; at += 1) {
    // Past the capacity the slice grows: a new array of twice the room, holding the elements decoded so far.
    if (at >= backing.length) backing = [...slice, ...new Array<unknown>(Math.max(1, 2 * backing.length) - at)];
    const [each, was] = [item[at], backing[at]];
    const value =
      each === null
        ? nilElement
          ? null
          : (was ?? null)
        : was === undefined || was === null
          ? each
          : decodedInto(element, was, each);
    backing[at] = value;
    slice.push(value);
  }
  return withBacking(slice, backing);
}

/** A slice's elements up to its capacity: those kept beside it, or, for one decoded from a list into a nil slice, its own and zeros. */
function backingOf(slice: unknown[]): unknown[] {
  const kept = (slice as { [BACKING]?: unknown[] })[BACKING];
  if (kept !== undefined) return kept;
  let capacity = slice.length === 0 ? 0 : 1;
  while (capacity < slice.length) capacity *= 2;
  return [...slice, ...new Array<unknown>(capacity - slice.length)];
}

function withBacking(slice: unknown[], backing: unknown[]): unknown[] {
  Object.defineProperty(slice, BACKING, { value: backing, enumerable: false });
  return slice;
}

/** The fields of a `goStruct`, in the order its shape names them: Go's struct order. */
export function goStructFields<S extends Record<string, z.ZodType>, U extends UnknownKeys>(
  struct: ReturnType<typeof goStruct<S, U>>,
): (keyof S & string)[] {
  return Object.keys(struct.out.shape) as (keyof S & string)[];
}

/** `value` with only the fields of a `goStruct`: what Go reads of it, without the keys a `keep` struct kept as they are. */
export function goStructValues<T extends object, S extends Record<string, z.ZodType>, U extends UnknownKeys>(
  value: T,
  struct: ReturnType<typeof goStruct<S, U>>,
): Partial<T> {
  const fields: readonly string[] = goStructFields(struct);
  return Object.fromEntries(Object.entries(value).filter(([key]) => fields.includes(key))) as Partial<T>;
}

/** A Go pointer to a struct: `null` or absent is nil, which the caller may refuse. */
export const goPointer = <T extends z.ZodType>(schema: T) => typed(schema.nullable(), { kind: 'pointer', to: schema });

/**
 * A Go slice: `null` is a nil slice. Go grows a slice with zeroed elements and `null` leaves an
 * element as it is, so a `null` element is its type's zero value: an empty struct, `""`, 0, false,
 * or nil for a pointer, map or interface.
 */
export const goSlice = <T extends z.ZodType>(element: T) => {
  // Found at the first null element, not as the schema is made: a parse then compiles the element's schema, and
  // every command would pay for the schemas of every store at its start.
  let zero: unknown;
  let known = false;
  const zeroOf = () => {
    if (!known) [zero, known] = [zeroValueOf(element), true];
    return zero;
  };
  return typed(z.array(z.preprocess((item) => (item === null ? zeroOf() : item), element)).nullable(), {
    kind: 'slice',
    of: element,
  });
};

/**
 * A Go array of `length` elements (`[2]int`, a range of lines): decoded as a slice of them, and written with
 * exactly `length` elements, zero values where the JSON had fewer.
 */
export const goArray = <T extends z.ZodType>(element: T, length: number) =>
  typed(goSlice(element), { kind: 'array', of: element, length });

/**
 * A Go map of string keys to `value`s: `null` is a nil map. A key `__proto__` is a key like any other, which
 * zod's record, assigning it, would leave out: it is checked and kept under a name no other key has.
 */
export const goMap = <T extends z.ZodType>(value: T) => {
  let hidden = '';
  return typed(
    z
      .preprocess((parsed) => {
        hidden = '';
        if (!isJsonObject(parsed)) return parsed;
        const input = valuesGoChecks(parsed, value);
        if (!Object.hasOwn(input, '__proto__')) return input;
        hidden = '\u0000__proto__';
        while (Object.hasOwn(input, hidden)) hidden = `\u0000${hidden}`;
        const renamed: Record<string, unknown> = {};
        for (const key of Object.keys(input)) setOwnKey(renamed, key === '__proto__' ? hidden : key, input[key]);
        return renamed;
      }, z.record(z.string(), value).nullable())
      .transform((map) => {
        if (map === null || hidden === '' || !Object.hasOwn(map, hidden)) return map;
        const named: Record<string, unknown> = {};
        for (const key of Object.keys(map)) setOwnKey(named, key === hidden ? '__proto__' : key, map[key]);
        return named as typeof map;
      }),
    { kind: 'map', of: value },
  );
};

/**
 * A map's keys and values as Go decodes them: a key written twice takes the last value, but each is decoded,
 * so the first a map's element type refuses is kept, for the check to refuse.
 */
function valuesGoChecks(map: Record<string, unknown>, element: z.ZodType): Record<string, unknown> {
  const repeated = repeatedKeysOf(map);
  if (repeated === undefined) return map;
  const checked: Record<string, unknown> = {};
  const refused = new Set<string>();
  repeated.keys.forEach((key, at) => {
    if (refused.has(key)) return;
    const item = repeated.values[at];
    setOwnKey(checked, key, item);
    if (!element.safeParse(item).success) refused.add(key);
  });
  return checked;
}

/** What `null` decodes to as a slice element of this type. */
function zeroValueOf(element: z.ZodType): unknown {
  // A struct decodes `null` itself (to its zero value); a pointer, map or interface stays nil.
  if (element.safeParse(null).success) return null;
  // The element types Reasonix's lists have: strings, sequence numbers, a line range's ends.
  if (element === goString) return '';
  if (element === goUint || element === goInt) return 0;
  if (element === goBool) return false;
  return null;
}

export const goString = typed(z.string(), { kind: 'string' });
/**
 * Go's int and int64: a whole number in int64's range, the largest included (measured with Reasonix
 * 1.38.11: 2^53 + 1 is read). As a double that largest is 2^63, so 2^63 itself passes too.
 */
export const goInt = typed(
  z.number().refine((value) => Number.isInteger(value) && value >= -(2 ** 63) && value <= 2 ** 63, {
    message: 'expected a whole number an int64 holds',
  }),
  { kind: 'int' },
);
/** Go's uint64: a whole number in its range; `-0` too is refused, as Go refuses the minus sign. */
export const goUint = typed(
  z.number().refine((value) => Number.isInteger(value) && value >= 0 && !Object.is(value, -0) && value <= 2 ** 64, {
    message: 'expected a whole number a uint64 holds',
  }),
  { kind: 'int' },
);
export const goBool = typed(z.boolean(), { kind: 'bool' });
/** `any`: whatever JSON is there; `null` is nil. */
export const goRaw = typed(z.unknown(), { kind: 'raw' });
/** `json.RawMessage`: whatever JSON is there, its text kept; `null` is kept too, as the text `null`. */
export const goRawMessage = typed(z.unknown(), { kind: 'raw message' });
/** A Go map or an object whose fields Reasonix keeps opaque. */
export const goObject = z.record(z.string(), z.unknown()).nullable();
