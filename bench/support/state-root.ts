import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { simpleWorkspaceSlug } from '../../test/support/reasonix/reasonix.js';
import { cachedInput } from './cached-input.js';
import { writeSession } from './write-session.js';

export interface BenchStateRoot {
  stateRoot: string;
  sessions: number;
  logBytes: number;
}

const WORKSPACES = 8;

/**
 * A state root of `count` v4 sessions spread over several workspaces, of one to five turns each
 * (a few tens of KB of log), as a machine that has used Reasonix for a while holds them; or, with
 * `sessionBytes`, every one of that many raw record bytes.
 */
export async function benchStateRoot(count: number, sessionBytes?: number): Promise<BenchStateRoot> {
  const params = {
    count,
    workspaces: WORKSPACES,
    seed: 20261202,
    ...(sessionBytes !== undefined ? { sessionBytes } : {}),
  };
  const name = sessionBytes === undefined ? `state-${count}` : `state-${count}x${sessionBytes}`;
  const input = await cachedInput(name, params, async (dir) => {
    let logBytes = 0;
    for (let index = 0; index < count; index += 1) {
      const workspace = `/tmp/rxstore-bench-ls/ws-${index % WORKSPACES}`;
      const store = join(dir, 'projects', simpleWorkspaceSlug(workspace), 'sessions-v4');
      const id = createHash('sha256').update(`ls-${index}`).digest('hex').slice(0, 32);
      const written = await writeSession(store, id, {
        rawBytes: sessionBytes ?? (1 + (index % 5)) * 20_000,
        seed: params.seed + index,
        workspace,
      });
      logBytes += written.logBytes;
    }
    return { sessions: count, logBytes };
  });
  return { ...input.value, stateRoot: input.dir };
}

/**
 * The environment of an rxstore child that reads the bench state root and nothing else (no real
 * home leaks into a listing or a search), its cache kept in `cacheHome`.
 */
export function stateRootEnv(stateRoot: string, cacheHome: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RXSTORE_ROOT: stateRoot,
    REASONIX_HOME: stateRoot,
    HOME: stateRoot,
    XDG_CACHE_HOME: cacheHome,
  };
  delete env.REASONIX_STATE_HOME;
  delete env.XDG_CONFIG_HOME;
  return env;
}
