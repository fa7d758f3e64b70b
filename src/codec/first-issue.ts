import type * as z from 'zod';

/**
 * The first thing zod found wrong with a value read, as `<path>: <what>`, in the same words
 * wherever rxstore reads JSON. `whole` names the value itself when the issue is about all of it;
 * null says nothing before `<what>` then.
 */
export function firstIssue(error: z.ZodError, whole: string | null = 'value'): string {
  const issue = error.issues[0];
  const path = issue?.path.map(String).join('.') || whole;
  // Stryker disable next-line StringLiteral,OptionalChaining: a zod failure always has a first issue
  const what = issue?.message ?? 'invalid';
  return path === null ? what : `${path}: ${what}`;
}
