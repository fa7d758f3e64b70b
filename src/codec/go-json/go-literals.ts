import * as z from 'zod';
import { repeatedKeysOf } from './repeated-keys.js';
import { fold, goInt, goUint } from './go-decode.js';
import { goText } from './go-text.js';
import { goRfc3339, goTimeProblem, goWritableRfc3339 } from './go-time.js';
import { stringEnd } from './json-strings.js';

/**
 * A value in JSON text that Go judges by how it is written, not by what it decodes to, in one of the fields
 * looked for: a number Go may refuse for an integer field, written with a fraction or an exponent (`1.0`, `1e2`)
 * or with 19 digits or more (past what a double holds exactly, where int64 and uint64 end); or a string holding
 * an escape, which Go's `time.Time` parses as written (`"…48\u002e5Z"`), its escapes not undone.
 */
export interface GoLiteral {
  field: GoLiteralField;
  /** As written: a string with its quotes. */
  literal: string;
}

/**
 * The literals of a JSON text in `fields` that Go may refuse: Go refuses a fraction or an exponent even when the
 * value is whole (`cannot unmarshal number 1.0 into … of type int64`) and a number past the type's range (`…
 * number 18446744073709551616 into … of type uint64`), and `JSON.parse` keeps no trace of how a number was
 * written, nor its digits past a double's, nor a string's escapes. Most texts have none, which a quick look
 * tells; only the others are walked. The text must be valid JSON. A value in a list has the path of the list: it
 * is an element of the field the list is (`sourceSequences: [1.0]`).
 */
export function goLiterals(text: string, fields: GoLiteralFields): GoLiteral[] {
  const mayHave = mayHaveNumberLiteral(text) || (fields.hasTime && text.includes('\\'));
  return mayHave ? walk(text, fields) : [];
}

/**
 * Whether `text` may hold such a number: a digit outside every string followed by `.`, `e` or `E`, or a
 * run of 19 digits. Strings are skipped with `indexOf` (most of a record is one long string: a payload's
 * base64, a tool's output), so only the few characters between strings are looked at one by one; true
 * only costs a walk.
 */
function mayHaveNumberLiteral(text: string): boolean {
  // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which is no digit
  for (let at = 0; at < text.length; ) {
    const quote = text.indexOf('"', at);
    const end = quote === -1 ? text.length : quote;
    let digits = 0;
    // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which is no digit
    for (; at < end; at += 1) {
      const char = text.charCodeAt(at);
      if (isDigit(char)) {
        digits += 1;
        // Stryker disable next-line ConditionalExpression,EqualityOperator: the quick look says *may* more often: true only costs the full walk, which finds what it finds (speed only)
        if (digits === 19) return true;
        continue;
      }
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: the quick look says *may* more often: true only costs the full walk, which finds what it finds (speed only)
      if (digits > 0 && (char === 0x2e || char === 0x65 || char === 0x45)) return true;
      digits = 0;
    }
    // Stryker disable next-line BooleanLiteral: the quick look says *may* more often: true only costs the full walk, which finds what it finds (speed only)
    if (quote === -1) return false;
    at = stringEnd(text, quote);
  }
  // Stryker disable next-line BooleanLiteral: the quick look says *may* more often: true only costs the full walk, which finds what it finds (speed only)
  return false;
}

/** Whether Go reads the literal into an integer of the type without refusing it. */
function fitsGoInteger(literal: string, type: GoLiteralType): boolean {
  if (/[.eE]/.test(literal)) return false;
  const value = BigInt(literal);
  // Stryker disable next-line EqualityOperator: only literals of 19 digits or more get here, never 0
  return type === 'uint64' ? value >= 0n && value < 2n ** 64n : value >= -(2n ** 63n) && value < 2n ** 63n;
}

const isDigit = (char: number) => char >= 0x30 && char <= 0x39;

/**
 * Every number token written with a fraction or an exponent or 19 digits or more under an integer field, and every
 * string holding a backslash under a time field. The walk knows at each value which field it is, if any, from the
 * tree of the fields' paths: a key is read only inside an object some field is below, and what is under no field
 * costs only a look at its characters, however deep or long.
 */
function walk(text: string, fields: GoLiteralFields): GoLiteral[] {
  const found: GoLiteral[] = [];
  // The first backslash at or after where the walk is (-1: none), looked for again only once passed: the text is searched once.
  let backslash = text.indexOf('\\');
  // One entry per open object or list: the node of its own path (undefined: below no field).
  const open: { node: FieldNode | undefined; object: boolean }[] = [];
  // The node of the value that comes next: the root's, a list's for its elements, a key's for its value.
  let next: FieldNode | undefined = fields.root;
  // Stryker disable next-line BooleanLiteral: before the first { nothing can be a key
  let expectingKey = false;
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (char === '"') {
      const end = stringEnd(text, at);
      if (expectingKey) {
        const object = open.at(-1)?.node;
        next = object && object.children.get(fold(JSON.parse(text.slice(at, end)) as string));
      } else if (next?.field?.type === 'time') {
        if (backslash !== -1 && backslash < at) backslash = text.indexOf('\\', at);
        if (backslash !== -1 && backslash < end) found.push({ field: next.field, literal: text.slice(at, end) });
      }
      at = end;
      continue;
    }
    if (char === '{' || char === '[') {
      open.push({ node: next, object: char === '{' });
      expectingKey = char === '{';
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      const container = open.at(-1);
      expectingKey = container?.object === true;
      // A list's next element is at the list's path; an object's next value at its key's, read first.
      if (container?.object === false) next = container.node;
      // Stryker disable next-line ConditionalExpression,StringLiteral,BlockStatement: a string value taken as the key is replaced by the next member's key before any number can follow
    } else if (char === ':') {
      expectingKey = false;
    } else if (char === '-' || isDigit(char.charCodeAt(0))) {
      let end = at + 1;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a JSON object never ends with a number: its closing brace ends the run first
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end += 1;
      const field = next?.field;
      if (field !== undefined && field.type !== 'time') {
        const literal = text.slice(at, end);
        if (/[.eE]/.test(literal) || literal.replace('-', '').length >= 19) found.push({ field, literal });
      }
      at = end;
      continue;
    }
    at += 1;
  }
  return found;
}

/** A Go type whose values Go judges as written: an integer's, or `time.Time`. */
export type GoLiteralType = 'int' | 'int64' | 'uint64' | 'time';

/** One of Go's integer or time fields: the name to show (as the struct spells it), its path's folded keys, its Go type. */
export interface GoLiteralField {
  name: string;
  folded: readonly string[];
  type: GoLiteralType;
}

/** A node of the tree of the fields' paths: the keys that go on from it, and the field that ends at it. */
interface FieldNode {
  children: Map<string, FieldNode>;
  field?: GoLiteralField;
}

/**
 * Go's integer and time fields of one struct, and the tree of their paths, matched a whole key at a time: a
 * top-level key written `"event.seq"` is no field of Go's, and is not taken for `seq` inside `event`.
 */
export class GoLiteralFields {
  readonly root: FieldNode = { children: new Map() };
  readonly hasTime: boolean;

  constructor(readonly list: readonly GoLiteralField[]) {
    for (const field of list) {
      let node = this.root;
      for (const key of field.folded) {
        let child = node.children.get(key);
        if (child === undefined) node.children.set(key, (child = { children: new Map() }));
        node = child;
      }
      node.field = field;
    }
    this.hasTime = list.some(({ type }) => type === 'time');
  }
}

/** `GoLiteralFields` from dotted field names as a struct spells them (no name of a field holds a dot) and their Go types. */
export function goLiteralFields(fields: Record<string, GoLiteralType>): GoLiteralFields {
  return new GoLiteralFields(
    Object.entries(fields).map(([name, type]) => ({ name, folded: name.split('.').map(fold), type })),
  );
}

/**
 * The integer and time fields of a schema built from `go-decode`'s blocks (structs, pointers, slices), found by
 * walking it: each `goInt` as int64, `goUint` as uint64 and `goRfc3339` as a time, an element of a slice at the
 * slice's path. A field of any JSON (`goRaw`) or a map holds none.
 */
export function goLiteralFieldsOf(schema: z.ZodType): GoLiteralFields {
  const fields: Record<string, GoLiteralType> = {};
  const visit = (node: z.ZodType, path: string) => {
    if (node === goInt) fields[path] = 'int64';
    else if (node === goUint) fields[path] = 'uint64';
    else if (node === goRfc3339 || node === goWritableRfc3339) fields[path] = 'time';
    else if (node instanceof z.ZodOptional || node instanceof z.ZodNullable) visit(node.unwrap() as z.ZodType, path);
    else if (node instanceof z.ZodPipe) visit(node.out as z.ZodType, path);
    else if (node instanceof z.ZodLazy) visit(node.unwrap() as z.ZodType, path);
    else if (node instanceof z.ZodArray) visit(node.element as z.ZodType, path);
    else if (node instanceof z.ZodObject)
      for (const [key, field] of Object.entries(node.shape as Record<string, z.ZodType>))
        visit(field, path ? `${path}.${key}` : key);
  };
  visit(schema, '');
  return goLiteralFields(fields);
}

/**
 * The first value in one of `fields` Go refuses as written, in Go's words; undefined when there is none. A
 * number in an integer field, written with a fraction or an exponent or past the field's range; a string holding
 * an escape in a time field (Go's `time.Time` takes the text between the quotes as it is, so `\u002e` is no `.`).
 * A value of the field's wrong type is left to the schema.
 */
export function goLiteralRefusal(text: string, fields: GoLiteralFields): string | undefined {
  for (const { field, literal } of goLiterals(text, fields)) {
    if (field.type === 'time') return `${field.name}: ${goTimeProblem(literal.slice(1, -1))}`;
    if (!fitsGoInteger(literal, field.type))
      return `${field.name}: cannot unmarshal number ${literal} into Go value of type ${field.type}`;
  }
  return undefined;
}

/**
 * `goLiteralRefusal` of JSON bytes: looked for in the bytes read as Latin-1 first (every byte one
 * character: JSON's punctuation, digits and backslashes are where they are in UTF-8, and no character is
 * decoded), and only when that finds a candidate in the text Go reads.
 */
export function goLiteralRefusalOfBytes(bytes: Buffer, fields: GoLiteralFields): string | undefined {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: no fields to check, or a text with no candidate: the walk finds nothing either (speed only)
  if (fields.list.length === 0) return undefined;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a text with no candidate: the walk finds nothing either (speed only)
  if (!mayHaveNumberLiteral(bytes.toString('latin1')) && !(fields.hasTime && bytes.includes(0x5c))) return undefined;
  return goLiteralRefusal(goText(bytes), fields);
}

/**
 * `goLiteralRefusalOfBytes` of a payload `parsed` from those bytes (`parseGoJson`): looked for only when the
 * parsed value holds a number under one of the integer fields or a string under a time field, by a key in any
 * case, written once or more; most payloads hold none, and their text is not searched at all. (Not the value a
 * struct decoded: a later key for a field, or in another case, may have made it null or emptied a list, and Go
 * refused the number all the same.)
 */
export function goLiteralRefusalOfParsed(bytes: Buffer, parsed: unknown, fields: GoLiteralFields): string | undefined {
  for (const { folded, type } of fields.list) {
    // Stryker disable next-line ConditionalExpression: the text searched when no such field holds a value finds nothing to refuse (speed only)
    if (holdsLiteral(parsed, folded, 0, type === 'time' ? 'string' : 'number'))
      return goLiteralRefusalOfBytes(bytes, fields);
  }
  return undefined;
}

/**
 * Whether the value holds a number (or a string) at the folded field path from `depth` on, under a key in any
 * case, each time a key was written; a list holds one if any element does.
 */
function holdsLiteral(value: unknown, folded: readonly string[], depth: number, kind: 'number' | 'string'): boolean {
  if (Array.isArray(value)) return value.some((item) => holdsLiteral(item, folded, depth, kind));
  // Stryker disable next-line ConditionalExpression: any value at the field path sends the text to the full walk, which finds what it finds (speed only)
  if (depth === folded.length) return typeof value === kind;
  // Stryker disable next-line BooleanLiteral: *may hold a number* only sends the text to the full walk, which finds what it finds (speed only)
  if (typeof value !== 'object' || value === null) return false;
  const name = folded[depth]!;
  const names = (key: string) => foldsTo(key, name);
  const repeated = repeatedKeysOf(value);
  if (repeated !== undefined)
    return repeated.keys.some((key, at) => names(key) && holdsLiteral(repeated.values[at], folded, depth + 1, kind));
  for (const key in value)
    if (names(key) && holdsLiteral((value as Record<string, unknown>)[key], folded, depth + 1, kind)) return true;
  return false;
}

/**
 * Whether `key` folds to `name` (folded already, ASCII as every field's is): letter by letter for an ASCII key,
 * the quick answer for nearly every key, whose length or first letters differ.
 */
function foldsTo(key: string, name: string): boolean {
  // Folding keeps a key's length but for `İ`, which folds to no ASCII name: a key of another length is none of the field's.
  if (key.length !== name.length) return false;
  for (let at = 0; at < key.length; at += 1) {
    const code = key.charCodeAt(at);
    if (code >= 0x80) return fold(key) === name;
    // Upper case ASCII letters to lower case; anything else as it is.
    if ((code >= 0x41 && code <= 0x5a ? code | 0x20 : code) !== name.charCodeAt(at)) return false;
  }
  return true;
}
