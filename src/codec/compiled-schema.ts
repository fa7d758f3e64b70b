import * as z from 'zod';

/**
 * A zod schema compiled to one generated function, compiled when it is first used: a read checks a
 * record or payload per frame and the compiled check takes about a third less time, but compiling
 * costs a short command (`rxstore --version`, a usage error) a quarter of its start-up, so a command
 * that never reads a log never pays for it. A value the compiled check refuses is checked again by the
 * schema itself, so the issues (and so the messages) are the schema's own.
 */
export function compiledOnFirstUse<Schema extends z.ZodType>(schema: Schema): () => Schema {
  let compiled: Schema | undefined;
  return () => {
    compiled ??= z.compile(schema);
    return compiled;
  };
}
