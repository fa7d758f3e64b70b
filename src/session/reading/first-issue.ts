import type { z } from 'zod';

/** The first thing zod found wrong with a value read, as `<path>: <what>`; `value` names the whole value. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  // Stryker disable next-line StringLiteral,OptionalChaining: a zod failure always has a first issue
  return `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`;
}
