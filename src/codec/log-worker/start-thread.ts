import { Worker, type ResourceLimits } from 'node:worker_threads';
import { keepReadingV8Flags } from './reading-v8-flags.js';

/**
 * A worker thread running the entry `name` (without extension) beside the module at `here` (its
 * `import.meta.url`). From the bundle or the build, the entry is its own `.js` file there; run from
 * the sources (tests, the bench), the thread registers tsx first, as its parent did. Undefined when
 * no thread can start here. The reading V8 flags this process was tuned with are applied again: a
 * thread's start sets them back (`keepReadingV8Flags`).
 */
export function startThread(here: string, name: string, resourceLimits?: ResourceLimits): Worker | undefined {
  const limits = resourceLimits ? { resourceLimits } : {};
  let thread: Worker;
  try {
    if (here.endsWith('.ts')) {
      const tsx = import.meta.resolve('tsx/esm/api');
      const script = new URL(`./${name}.ts`, here).href;
      const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`;
      thread = new Worker(bootstrap, { eval: true, execArgv: [], ...limits });
    } else thread = new Worker(new URL(`./${name}.js`, here), { execArgv: [], ...limits });
  } catch {
    return undefined;
  }
  // The thread sets the flags back as it starts, on its own: they are applied again once it runs.
  thread.once('online', keepReadingV8Flags);
  return thread;
}
