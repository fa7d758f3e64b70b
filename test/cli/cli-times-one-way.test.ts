import { describe, expect, it } from 'vitest';
import { runCliChild } from '../support/cli-child.js';
import { fixture } from '../support/fixtures.js';

/** ISO 8601 in UTC with milliseconds, always three digits. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('every time a command prints has one form', () => {
  // The fixture's manifest and commits carry Go's nanosecond times (`…49.235045302Z`).
  const { dir, root } = fixture('tool-calls');
  const id = '1083b7d00d4a95855b15212dd9c840c6';

  it("inspect, text and --json: ISO 8601 UTC with milliseconds, not the store's own precision", async () => {
    const json = await runCliChild(['inspect', dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as { createdAt: string; updatedAt: string };
    expect(report.createdAt).toBe('2026-11-30T06:48:49.235Z');
    expect(report.updatedAt).toBe('2026-11-30T06:48:49.917Z');
    const text = await runCliChild(['inspect', dir]);
    expect(text.stdout).toContain('created      2026-11-30T06:48:49.235Z\n');
    expect(text.stdout).toContain('updated      2026-11-30T06:48:49.917Z\n');
  });

  it('ls --json and where --json give the same time for the same session, with milliseconds', async () => {
    const ls = await runCliChild(['ls', '--json', '--state-home', root]);
    expect(ls.code, ls.stderr).toBe(0);
    const listed = (JSON.parse(ls.stdout) as { id: string; updatedAt: string; copies: { updatedAt: string }[] }[]).find(
      (session) => session.id === id,
    )!;
    expect(listed.updatedAt).toBe('2026-11-30T06:48:49.917Z');
    for (const copy of listed.copies) expect(copy.updatedAt).toMatch(ISO_MS);
    const where = await runCliChild(['where', id, '--json', '--state-home', root]);
    const [found] = JSON.parse(where.stdout) as { updatedAt: string }[];
    expect(found!.updatedAt).toBe(listed.updatedAt);
  });
});
