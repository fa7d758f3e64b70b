import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * The user's cache folder for rxstore: `$XDG_CACHE_HOME/rxstore`, or the platform's own. A relative
 * XDG_CACHE_HOME is ignored, as the XDG spec says (it would put the cache wherever ls was run).
 */
export function defaultCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'rxstore');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'rxstore');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'rxstore', 'Cache');
  return join(homedir(), '.cache', 'rxstore');
}
