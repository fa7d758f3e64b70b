import { goWorkingDirectory } from './working-directory.js';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { checkExistingFolder } from '../../fs/path-kind.js';
import { currentPlatform } from './platform.js';
import { resolveStoreRoots, type ResumeContext, type RootInputs, type StoreRoots } from './roots.js';

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
 * The roots Reasonix would use on this machine (or on the machine the options describe), and what
 * a resume command is judged by there (`resume`: run from `cwd`, with these roots).
 */
export async function machineRoots(
  options: MachineRootOptions = {},
): Promise<{ inputs: RootInputs; roots: StoreRoots; resume: ResumeContext }> {
  for (const given of [options.home, options.stateHome])
    if (given !== undefined) await checkExistingFolder(resolve(given), given, { mayBeMissing: true });
  if (options.cwd !== undefined) await checkExistingFolder(resolve(options.cwd), options.cwd);
  const inputs: RootInputs = {
    platform: options.platform ?? currentPlatform(),
    env: options.env ?? process.env,
    homeDir: options.homeDir ?? homedir(),
    // Where Reasonix would run: the shell's $PWD (a symlinked folder kept) as Go's os.Getwd takes it.
    cwd: options.cwd !== undefined ? resolve(options.cwd) : goWorkingDirectory(),
  };
  const roots = await resolveStoreRoots(inputs, {
    ...(options.home !== undefined ? { home: resolve(options.home) } : {}),
    ...(options.stateHome !== undefined ? { stateHome: resolve(options.stateHome) } : {}),
  });
  const resume: ResumeContext = {
    platform: inputs.platform,
    cwd: inputs.cwd,
    reasonixStateRoot: roots.reasonixStateRoot,
    pinned: roots.pinned,
  };
  return { inputs, roots, resume };
}
