import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

export type JsonFileResult<T> = { state: 'missing' } | { state: 'invalid'; reason: string } | { state: 'ok'; value: T; text: string };

/** Reads and validates a JSON file from disk; never throws for a missing or malformed file. */
export async function readJsonFile<S extends z.ZodType>(path: string, schema: S): Promise<JsonFileResult<z.infer<S>>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'invalid', reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { state: 'invalid', reason: (error as Error).message };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { state: 'invalid', reason: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
  }
  return { state: 'ok', value: parsed.data, text };
}
