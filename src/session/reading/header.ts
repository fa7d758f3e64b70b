import * as z from 'zod';
import { goInt, goString, goStruct, goStructValues } from '../../codec/go-json/go-decode.js';
import { goRfc3339, goUtcNanoText, ZERO_TIME } from '../../codec/go-json/go-time.js';
import { goLiteralFields } from '../../codec/go-json/go-literals.js';
import { readJsonFile, readJsonFileSync, type JsonFileResult } from './read-json-file.js';

/** `header.json` as Go decodes it: keys in any case, `null` as the zero value, numbers as written. */
const HeaderStruct = goStruct(
  {
    schemaVersion: goInt,
    sessionId: goString,
    createdAt: goRfc3339,
    cwd: goString,
    parentSessionId: goString,
    origin: goString,
  },
  'keep',
);

/** The origins Reasonix writes in a header. */
const ORIGINS = ['new', 'fork', 'canonical-v4-import', 'legacy-import'];

/**
 * `header.json`, written by the desktop app and `serve` (docs/format.md §9.2). Present means it must be
 * valid: read as Reasonix 1.38.11 reads it (a trial matched `"cwd": null` and keys in another case, which it
 * opens, and `"schemaVersion": 1.0`, which it refuses), then its version: one other than 1 is an unsupported
 * version (the reader says), whatever the rest holds. Only then its checks: a time that is not Go's zero instant
 * (`0001-01-01T00:00:00+01:00` is another; a missing time is the zero one), one of the origins it writes.
 */
export const HeaderSchema = HeaderStruct.pipe(
  z
    .looseObject({
      schemaVersion: z.number().default(0),
      sessionId: z.string().default(''),
      createdAt: z.string().default(ZERO_TIME),
      cwd: z.string().optional(),
      parentSessionId: z.string().optional(),
      origin: z.string().default(''),
    })
    .superRefine(({ schemaVersion, createdAt, origin }, context) => {
      if (schemaVersion !== 1) return;
      if (goUtcNanoText(createdAt) === ZERO_TIME)
        context.addIssue({ code: 'custom', path: ['createdAt'], message: 'createdAt must not be the zero time' });
      if (!ORIGINS.includes(origin))
        context.addIssue({
          code: 'custom',
          path: ['origin'],
          message: `Invalid option: expected one of ${ORIGINS.map((name) => JSON.stringify(name)).join('|')}`,
        });
    }),
);
/** A session's `header.json`. */
export type Header = z.infer<typeof HeaderSchema>;

/** Its version is a Go `int` (Reasonix's refusal of `1.0` names the type), its time a `time.Time`. */
const HEADER_LITERALS = goLiteralFields({ schemaVersion: 'int', createdAt: 'time' });

/** A session's `header.json` as Reasonix reads it: missing, invalid (with why), unreadable, or its value. */
export function readHeader(path: string): Promise<JsonFileResult<Header>> {
  return readJsonFile(path, HeaderSchema, HEADER_LITERALS);
}

/** `readHeader`, done before it returns: a caller that keeps little of it reads the next with this one gone. */
export function readHeaderSync(path: string): JsonFileResult<Header> {
  return readJsonFileSync(path, HeaderSchema, HEADER_LITERALS);
}

/** The header without the keys Reasonix ignores (kept as they are by `HeaderSchema`). */
export function headerFields(header: Header): Header {
  return goStructValues(header, HeaderStruct) as Header;
}
