import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * A worker thread running the entry `name` (without extension) beside the module at `here` (its
 * `import.meta.url`). From the bundle or the build, the entry is its own `.js` file there; run from
 * the sources (tests, the bench), the thread registers tsx first, as its parent did. Undefined when
 * no thread can start here.
 */
export function startThread(here: string, name: string, resourceLimits?: ResourceLimits): Worker | undefined {
  const limits = resourceLimits ? { resourceLimits } : {};
  try {
    if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { execArgv: [], ...limits });
    const tsx = import.meta.resolve('tsx/esm/api');
    const script = new URL(`./${name}.ts`, here).href;
    const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`;
    return new Worker(bootstrap, { eval: true, execArgv: [], ...limits });
  } catch {
    return undefined;
  }
}
