// The workspace slug (docs/format.md §1.3), checked against spec vectors and against the folders the real Reasonix 1.38.11 creates.
import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fnv1a64Hex, workspaceSlug } from '../../src/store/roots/workspace-slug.js';
import { startMockModel } from '../support/reasonix/mock-model.js';
import { listSessionDirs, reasonixBinary, reasonixTitle, runReasonix } from '../support/reasonix/reasonix.js';
import { tempDir } from '../support/temp-dir.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('workspace slug', () => {
  it('docs/format.md §16 vectors', () => {
    expect(workspaceSlug('/tmp/spechome/ws', 'linux')).toBe('-tmp-spechome-ws');
    expect(workspaceSlug('C:\\Users\\Me\\Proj', 'win32')).toBe('c--users-me-proj');
  });

  it('replaces every /, \\ and : and nothing else; case is kept off Windows', () => {
    expect(workspaceSlug('/Users/Me/My Project:v2/a\\b', 'darwin')).toBe('-Users-Me-My Project-v2-a-b');
    expect(workspaceSlug('/a//b', 'linux')).toBe('-a--b');
  });

  it('lower-cases on Windows as Go does, code point by code point (İ becomes i, not i̇)', () => {
    expect(workspaceSlug('D:\\İstanbul\\ÄÖÜ\\ΣΟΦΙΑ', 'win32')).toBe('d--istanbul-äöü-σοφια');
  });

  it('FNV-1a-64 reference values', () => {
    expect(fnv1a64Hex(Buffer.from(''))).toBe('cbf29ce484222325');
    expect(fnv1a64Hex(Buffer.from('a'))).toBe('af63dc4c8601ec8c');
    expect(fnv1a64Hex(Buffer.from('foobar'))).toBe('85944171f73967e8');
  });

  it('a slug over 255 bytes keeps 238 bytes at a character boundary, then - and the FNV-1a-64 of the whole slug', () => {
    const path = `/${'é'.repeat(150)}`; // 1 + 300 bytes: byte 238 falls inside an é
    const whole = `-${'é'.repeat(150)}`;
    const slug = workspaceSlug(path, 'linux');
    expect(slug).toBe(`-${'é'.repeat(118)}-${fnv1a64Hex(Buffer.from(whole))}`);
    expect(bytes(slug)).toBe(237 + 17);
    const exact = `/${'a'.repeat(254)}`; // 255 bytes: kept as it is
    expect(workspaceSlug(exact, 'linux')).toBe(exact.replace('/', '-'));
    expect(bytes(workspaceSlug(`${exact}b`, 'linux'))).toBe(255);
  });
});

const bin = reasonixBinary();

/** A folder under `base` whose slug is over 255 bytes and whose 238th byte falls inside a `char` of the last component. */
function pathCutInside(base: string, char: string): string {
  const before = bytes(`${base}/`);
  const width = bytes(char);
  let pad = 1;
  while ((238 - before - pad) % width === 0) pad += 1;
  return join(base, `${'x'.repeat(pad)}${char.repeat(Math.floor((255 - pad) / width))}`);
}

describe.skipIf(!bin)(reasonixTitle('slugs of the real Reasonix'), () => {
  /** Runs one turn from `workspace` and returns the slug folder Reasonix created under `<state>/projects/`. */
  async function slugFolderOf(workspace: string): Promise<string> {
    const home = await tempDir('rxstore-slug-home-');
    const mock = await startMockModel([{ text: 'Hi.' }]);
    try {
      const result = await runReasonix({ home, cwd: workspace, args: ['run', 'Say hi.'], mock });
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await mock.close();
    }
    const [session, ...more] = listSessionDirs(home);
    expect(more).toEqual([]);
    return basename(dirname(dirname(session!)));
  }

  it.each([
    ['a path over 255 bytes', 255, async (base: string) => join(base, 'a'.repeat(200), 'b'.repeat(100))],
    ['non-ASCII characters', undefined, async () => join(await tempDir('rxstore-slug-测试-é-'), 'Проект ✓')],
    ['over 255 bytes, cut inside a 2-byte character', 254, async (base: string) => pathCutInside(base, 'é')],
    ['over 255 bytes, cut inside a 3-byte character', 'backed off', async (base: string) => pathCutInside(base, '测')],
    ['over 255 bytes, cut inside a 4-byte emoji', 'backed off', async (base: string) => pathCutInside(base, '🚀')],
  ] as const)('equals the folder Reasonix creates: %s', async (_name, slugBytes, makePath) => {
    const workspace = await makePath(await realpath(await tempDir('rxstore-slug-')));
    await mkdir(workspace, { recursive: true });
    const expected = workspaceSlug(await realpath(workspace), 'linux');
    if (slugBytes === 'backed off') expect(bytes(expected)).toBeLessThan(255);
    else if (slugBytes !== undefined) expect(bytes(expected)).toBe(slugBytes);
    expect(await slugFolderOf(workspace)).toBe(expected);
  });
});
