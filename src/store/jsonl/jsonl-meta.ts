import type * as z from 'zod';
import { fold, goBool, goInt, goPointer, goString, goStruct } from '../../codec/go-json/go-decode.js';
import { goJson, goJsonIndented } from '../../codec/go-json/go-json.js';
import { JsonSpan, jsonValueEnd } from '../../codec/go-json/json-spans.js';
import { goLiteralFieldsOf } from '../../codec/go-json/go-literals.js';
import { goTrimSpace } from '../../codec/go-json/go-space.js';
import { goRfc3339, goUtcNanoText, ZERO_TIME } from '../../codec/go-json/go-time.js';
import { statOrUndefined } from '../../fs/stat-or-undefined.js';
import { waitsForever } from '../../fs/waits-forever.js';
import { type JsonFileResult, readJsonFile } from '../../session/reading/read-json-file.js';

/** A turn Reasonix had begun and not finished when it wrote the meta (`in_flight_turn`). */
const InFlightTurnStruct = goStruct(
  {
    id: goString,
    start_message_index: goInt,
    preserve_user: goBool,
    started_at: goRfc3339,
    start_revision: goInt,
    start_digest: goString,
    commit_digest: goString,
  },
  'keep',
);

/**
 * `<id>.jsonl.meta`, a JSONL transcript's BranchMeta (docs/format.md §11.3), read as Reasonix 1.38.11 decodes it
 * with Go's `encoding/json` (measured by finding the session by its title): keys in any case, a missing or `null`
 * field its zero value (the two times too), a key written twice applied twice, and a value of the wrong type,
 * an integer written `1.0` or a time that is not RFC 3339, in any field, the whole file refused. Other keys are
 * ignored by Go and kept here, as newer Reasonix builds add some.
 */
export const JsonlMetaSchema = goStruct(
  {
    id: goString,
    name: goString,
    parent_id: goString,
    fork_turn: goInt,
    fork_message_index: goInt,
    created_at: goRfc3339,
    updated_at: goRfc3339,
    scope: goString,
    workspace_root: goString,
    topic_id: goString,
    topic_title: goString,
    custom_title: goString,
    model: goString,
    token_mode: goString,
    agent_preset: goString,
    quality_floor: goString,
    mode: goString,
    tool_approval_mode: goString,
    goal: goString,
    recovered: goBool,
    recovery_reason: goString,
    recovery_digest: goString,
    recovery_depth: goInt,
    recovery_preferred: goBool,
    recovery_preferred_digest: goString,
    revision: goInt,
    content_digest: goString,
    writer_id: goString,
    schema_version: goInt,
    turns: goInt,
    preview: goString,
    listing_revision: goInt,
    listing_content_digest: goString,
    in_flight_turn: goPointer(InFlightTurnStruct),
  },
  'keep',
);
/** A JSONL transcript's `.jsonl.meta` sidecar. */
export type JsonlMeta = z.infer<typeof JsonlMetaSchema>;

const META_LITERALS = goLiteralFieldsOf(JsonlMetaSchema);

/**
 * Reads a transcript's `.jsonl.meta` as Reasonix reads it: the one reader of the file, for every command. A
 * byte-order mark at its start is passed over, and a file of white space and NUL bytes only (a torn write), or a
 * device that reads as empty (`/dev/null`), is no meta, as in Reasonix (a helper's trials with 1.38.11).
 */
export function readJsonlMeta(transcript: string): Promise<JsonFileResult<JsonlMeta>> {
  const path = `${transcript}.meta`;
  const stats = statOrUndefined(path);
  if (stats && !stats.isFile() && !stats.isDirectory() && !waitsForever(path))
    return Promise.resolve({ state: 'missing' });
  return readJsonFile(path, JsonlMetaSchema, META_LITERALS, { skipByteOrderMark: true, blankIsMissing: true });
}

/**
 * A JSONL session's own title: `custom_title`, then `topic_title`, trimmed of Go's white space, one of white space
 * only counting as none (measured with Reasonix 1.38.11); Reasonix shows `preview` after them (docs/format.md §11.3).
 */
export function jsonlMetaTitle(meta: JsonlMeta): string | undefined {
  return shown(meta.custom_title) ?? shown(meta.topic_title);
}

/** The meta's `preview`, none when it is white space only, as for the titles. */
export function jsonlMetaPreview(meta: JsonlMeta): string | undefined {
  return shown(meta.preview);
}

/**
 * One of the meta's two times as UTC (Go takes forms `Date.parse` does not: `05,5`, an hour of one digit, an
 * offset of `+00:60`), unless missing or Go's zero time (a meta written without it).
 */
export function jsonlMetaTime(time: string | undefined): string | undefined {
  return time === undefined || time === ZERO_TIME ? undefined : goUtcNanoText(time);
}

/** A display text of the meta as Reasonix loads it: without white space at either end (Go's), none when that is all. */
function shown(text: string | undefined): string | undefined {
  return goTrimSpace(text ?? '') || undefined;
}

/**
 * A meta's text (as read: Go takes it) with its id another: the value of the last key Go takes for `id` replaced,
 * or an `id` put first when it has none, every other byte as it was (an integer past 2^53, a key no field has, a
 * time as written), so that the meta written reads in Reasonix as the one it came from did.
 */
export function jsonlMetaWithId(text: string, id: string): string {
  const start = text.search(/\S/);
  const end = start === -1 ? undefined : jsonValueEnd(text, start);
  if (end === undefined || text[start] !== '{') return goJsonIndented({ id });
  const ids = new JsonSpan(text, start, end).entries().filter((entry) => fold(entry.key) === 'id');
  const last = ids.at(-1)?.span;
  if (last !== undefined) return `${text.slice(0, last.start)}${goJson(id)}${text.slice(last.end)}`;
  const empty = /^\{\s*\}$/.test(text.slice(start, end));
  return `${text.slice(0, start + 1)}\n  "id": ${goJson(id)}${empty ? '\n' : ','}${text.slice(start + 1)}`;
}
