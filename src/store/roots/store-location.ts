/** What the folders around a session say about it (docs/format.md §1.2, §12). */
export interface StoreLocation {
  layout: 'sessions-v4' | 'desktop-sessions-v5' | 'jsonl';
  /** `workspace`: under `projects/<slug>/`; `global`: directly under the root. */
  scope: 'workspace' | 'global';
  slug: string | null;
  /**
   * The session's path below its root, `/`-separated: `projects/<slug>/sessions-v4/<id>`. A path
   * recorded in a manifest or the desktop registry keeps naming the same session after the root
   * was moved or copied elsewhere, through this key.
   */
  key: string;
}

/**
 * Where a session directory or transcript sits, read from its path alone (either separator):
 * `…/projects/<slug>/sessions-v4/<id>`, `…/sessions-v4/<id>`, `…/desktop-sessions-v5/by-id/<id>`,
 * `…/projects/<slug>/sessions/<id>.jsonl`, `…/sessions/<id>.jsonl`. Undefined for anything else.
 */
export function locateInStore(path: string): StoreLocation | undefined {
  const parts = path.split(/[/\\]+/).filter(Boolean);
  const [name, store, slug, projects] = [parts.at(-1), parts.at(-2), parts.at(-3), parts.at(-4)];
  if (!name || !store) return undefined;
  if (store === 'by-id' && slug === 'desktop-sessions-v5') {
    return { layout: 'desktop-sessions-v5', scope: 'global', slug: null, key: `desktop-sessions-v5/by-id/${name}` };
  }
  const layout = store === 'sessions-v4' ? 'sessions-v4' : store === 'sessions' ? 'jsonl' : undefined;
  if (!layout) return undefined;
  if (projects === 'projects' && slug && !slug.startsWith('.'))
    return { layout, scope: 'workspace', slug, key: `projects/${slug}/${store}/${name}` };
  return { layout, scope: 'global', slug: null, key: `${store}/${name}` };
}
