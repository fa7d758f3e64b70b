import { z } from 'zod';

/** What `rxstore inspect --json` promises (the inspect issue), owned by the tests. */
export const InspectJsonSchema = z.object({
  id: z.string(),
  store: z.string(),
  status: z.enum(['ok', 'torn-tail', 'turn-refused', 'damaged', 'unsupported']),
  newTurn: z
    .object({ accepted: z.boolean(), reason: z.string().nullable(), message: z.number().int().nullable() })
    .nullable(),
  batches: z.number().int().nonnegative(),
  events: z.object({ total: z.number().int().nonnegative(), byKind: z.record(z.string(), z.number().int()) }),
  messages: z.object({ total: z.number().int().nonnegative(), byRole: z.record(z.string(), z.number().int()) }),
  payloadRefs: z.number().int().nonnegative(),
  tornTail: z.object({ offset: z.number().int(), bytes: z.number().int().positive() }).nullable(),
  title: z.string().nullable(),
  workspace: z.string().nullable(),
  problems: z.array(
    z.object({ code: z.string(), message: z.string(), file: z.string(), offset: z.number().int().optional() }),
  ),
});

/** Runs the CLI in-process and captures what a user would see. */
export async function runCli(args: string[]) {
  const { main } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}
