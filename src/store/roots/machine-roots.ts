import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { checkExistingFolder } from '../../fs/path-kind.js';
import { currentPlatform } from './platform.js';
import { resolveStoreRoots, type RootInputs, type StoreRoots } from './roots.js';

/** What `machineRoots` takes instead of this machine's environment. */
export interface MachineRootOptions {
  /** The Reasonix home, as REASONIX_HOME would set it. */
  home?: string;
  /** The state root, as REASONIX_STATE_HOME would set it. */
  stateHome?: string;
  /** The folder Reasonix would run from; the current directory by default. */
  cwd?: string;
  /** Defaults: this process's environment, platform and home directory. */
  env?: NodeJS.ProcessEnv;
  platform?: RootInputs['platform'];
  homeDir?: string;
}

/**
 * The roots Reasonix would use on this machine (or on the machine the options describe). A `cwd`
 * given must be a folder that is there, a `home` or `stateHome` a folder if anything is there
 * (Reasonix makes a home that is not): `RX_PATH_KIND`, naming the path as given.
 */
export async function machineRoots(
  options: MachineRootOptions = {},
): Promise<{ inputs: RootInputs; roots: StoreRoots }> {
  for (const given of [options.home, options.stateHome])
    if (given !== undefined) await checkExistingFolder(resolve(given), given, { mayBeMissing: true });
  if (options.cwd !== undefined) await checkExistingFolder(resolve(options.cwd), options.cwd);
  const inputs: RootInputs = {
    platform: options.platform ?? currentPlatform(),
    env: options.env ?? process.env,
    homeDir: options.homeDir ?? homedir(),
    cwd: resolve(options.cwd ?? '.'),
  };
  const roots = await resolveStoreRoots(inputs, {
    ...(options.home !== undefined ? { home: resolve(options.home) } : {}),
    ...(options.stateHome !== undefined ? { stateHome: resolve(options.stateHome) } : {}),
  });
  return { inputs, roots };
}
