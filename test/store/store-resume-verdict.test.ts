// What `reasonix --resume <id>` run from a folder makes of each kind of copy (docs/format.md §13.1), on each platform.
import { describe, expect, it } from 'vitest';
import type { ListedCopy } from '../../src/store/listing/describe-conversation.js';
import { resumeVerdict, type ResumeContext } from '../../src/store/resume/resume-verdict.js';

const linux: ResumeContext = { platform: 'linux', cwd: '/home/me/app', reasonixStateRoot: '/home/me/.reasonix' };

function copy(facts: Partial<ListedCopy>): ListedCopy {
  return {
    id: '0123456789abcdef0123456789abcdef',
    store: 'sessions-v4',
    scope: 'workspace',
    slug: '-home-me-app',
    path: '/home/me/.reasonix/projects/-home-me-app/sessions-v4/0123456789abcdef0123456789abcdef',
    root: '/home/me/.reasonix',
    workspace: '/home/me/app',
    workspaceFrom: 'session-context',
    title: null,
    titleFrom: null,
    updatedAt: null,
    messages: 4,
    status: 'ok',
    problem: null,
    payloadRefs: 0,
    goesOnFrom: null,
    checked: 'now',
    draft: false,
    passedOver: false,
    ...facts,
  };
}

describe('resume verdicts', () => {
  it("a session in the folder's own store resumes by id; a locked one only once its writer exits", () => {
    expect(resumeVerdict(copy({}), null, [], linux)).toMatchObject({
      resumes: true,
      reason: 'resumes',
      command: 'reasonix --resume 0123456789abcdef0123456789abcdef',
    });
    expect(resumeVerdict(copy({ status: 'locked' }), null, [], linux)).toMatchObject({
      resumes: false,
      reason: 'locked',
    });
    expect(resumeVerdict(copy({ status: 'torn-tail' }), null, [], linux).resumes).toBe(true);
  });

  it('a damaged copy Reasonix goes on with from its recovery checkpoint: resumed where the checkpoint goes with it, refused where a copy goes without', () => {
    const store = '/home/me/.reasonix/projects/-home-me-app/sessions-v4';
    const past = {
      checkpoint: `${store}/.recovery-cache/0123456789abcdef0123456789abcdef/recovery-v1.bolt`,
      anchorOffset: 36_799,
      anchorSequence: 30,
      logOffset: 37_672,
      sequence: 30,
      damagedAt: 273,
    };
    const damaged = { status: 'damaged' as const, problem: 'decode v4 frame: CRC check failed', goesOnFrom: past };
    const here = resumeVerdict(copy(damaged), null, [], linux);
    expect(here).toMatchObject({
      resumes: true,
      reason: 'resumes-past-damage',
      command: 'reasonix --resume 0123456789abcdef0123456789abcdef',
    });
    expect(here.explanation).toContain('damaged at offset 273 (decode v4 frame: CRC check failed)');
    expect(here.explanation).toContain(`from its recovery checkpoint ${past.checkpoint}`);
    expect(here.explanation).toContain('without that checkpoint');
    // Without the checkpoint the same copy is refused.
    expect(resumeVerdict(copy({ ...damaged, goesOnFrom: null }), null, [], linux)).toMatchObject({
      resumes: false,
      reason: 'damaged',
      command: null,
    });
    // From another folder the command goes to its own, and says it goes on past the damage there.
    const elsewhere = resumeVerdict(copy(damaged), null, [], { ...linux, cwd: '/home/me/other' });
    expect(elsewhere).toMatchObject({ resumes: false, reason: 'other-workspace' });
    expect(elsewhere.command).toContain('reasonix --resume 0123456789abcdef0123456789abcdef');
    expect(elsewhere.explanation).toContain('; where that command finds it, it is damaged at offset 273');
    // A global copy would be copied into a store without its cache: refused.
    const global = resumeVerdict(
      copy({
        ...damaged,
        scope: 'global',
        slug: null,
        path: '/home/me/.reasonix/sessions-v4/0123456789abcdef0123456789abcdef',
      }),
      '/home/me/app',
      [],
      linux,
    );
    expect(global).toMatchObject({ resumes: false, reason: 'damaged', command: null });
    expect(global.explanation).toContain('does not go with the copy');
  });

  it("a draft (no storageRevision) in the folder's own store: its id goes on in a new session Reasonix imports it into; elsewhere, the command says so", () => {
    const draft = resumeVerdict(copy({ draft: true }), null, [], linux);
    expect(draft).toMatchObject({
      resumes: true,
      reason: 'imports-draft',
      command: 'reasonix --resume 0123456789abcdef0123456789abcdef',
      copiesSession: false,
    });
    expect(draft.explanation).toContain('imports it into a new session of this store, under a new id');
    const global = resumeVerdict(
      copy({
        draft: true,
        scope: 'global',
        slug: null,
        path: '/home/me/.reasonix/sessions-v4/0123456789abcdef0123456789abcdef',
      }),
      '/home/me/app',
      [],
      linux,
    );
    expect(global).toMatchObject({ resumes: false, reason: 'global-store', copiesSession: true });
    expect(global.explanation).toMatch(
      /; a draft \(its manifest has no storageRevision\), which Reasonix imports into a new session under a new id and goes on there$/,
    );
    // A draft with no command says nothing of what a command would do.
    expect(
      resumeVerdict(
        copy({ draft: true, status: 'damaged', problem: 'decode v4 frame: CRC check failed' }),
        null,
        [],
        linux,
      ).explanation,
    ).not.toContain('draft');
  });

  it('a session under a slug whose folder is unknown gets no command', () => {
    const moved = copy({
      slug: '-srv-elsewhere',
      path: '/home/me/.reasonix/projects/-srv-elsewhere/sessions-v4/x',
      workspace: '/home/me/app',
    });
    expect(resumeVerdict(moved, '/home/me/app', [], { ...linux, cwd: '/tmp' })).toMatchObject({
      reason: 'other-workspace',
      command: null,
      explanation: expect.stringContaining('the folder whose slug is -srv-elsewhere'),
    });
  });

  it('a session under another state root resumes with REASONIX_STATE_HOME pointing there', () => {
    const backup = copy({ root: '/mnt/backup/rx', path: '/mnt/backup/rx/projects/-home-me-app/sessions-v4/x' });
    expect(resumeVerdict(backup, null, [], linux)).toMatchObject({
      reason: 'other-state-root',
      command:
        'cd /home/me/app && REASONIX_STATE_HOME=/mnt/backup/rx reasonix --resume 0123456789abcdef0123456789abcdef',
    });
  });

  it('JSONL: by branch id from its own folder, by path from anywhere else; legacy roots by path', () => {
    const transcript = copy({
      id: 'notes',
      store: 'jsonl',
      path: '/home/me/.reasonix/projects/-home-me-app/sessions/notes.jsonl',
      workspaceFrom: 'jsonl-meta',
    });
    expect(resumeVerdict(transcript, null, [], linux)).toMatchObject({
      resumes: true,
      command: 'reasonix --resume notes',
    });
    const global = copy({
      id: 'notes',
      store: 'jsonl',
      scope: 'global',
      slug: null,
      workspace: null,
      path: "/home/me/.reasonix/sessions/it's notes.jsonl",
    });
    expect(resumeVerdict(global, null, [], linux)).toMatchObject({
      reason: 'global-store',
      command: "reasonix --resume '/home/me/.reasonix/sessions/it'\\''s notes.jsonl'",
    });
    const legacy = copy({
      id: 'old',
      store: 'legacy',
      scope: 'global',
      slug: null,
      workspace: null,
      root: '/home/me/.config/reasonix',
      path: '/home/me/.config/reasonix/sessions/old.jsonl',
    });
    expect(resumeVerdict(legacy, null, [], linux)).toMatchObject({
      reason: 'legacy-root',
      command: 'reasonix --resume /home/me/.config/reasonix/sessions/old.jsonl',
    });
  });

  it('a damaged or unsupported copy gets no command, wherever it is', () => {
    expect(
      resumeVerdict(copy({ status: 'damaged', problem: 'invalid v4 frame magic' }), null, [], linux),
    ).toMatchObject({
      reason: 'damaged',
      command: null,
      explanation: 'Reasonix would refuse this copy: invalid v4 frame magic',
    });
    expect(resumeVerdict(copy({ status: 'unsupported', scope: 'global' }), null, [], linux)).toMatchObject({
      reason: 'unsupported',
      command: null,
    });
    // A refused payload's problem says Reasonix would refuse it already: the explanation says so once.
    const refused = copy({
      status: 'damaged',
      problem: 'Reasonix 1.38.11 would refuse: invalid message/complete payload at 5: empty id',
    });
    expect(resumeVerdict(refused, null, [], linux).explanation).toBe(
      'Reasonix would refuse this copy: invalid message/complete payload at 5: empty id',
    );
  });

  it('on Windows: cmd.exe commands, and slugs compared without regard to case', () => {
    const windows: ResumeContext = {
      platform: 'win32',
      cwd: 'C:\\Users\\Me\\Other',
      reasonixStateRoot: 'C:\\Users\\Me\\AppData\\Roaming\\reasonix',
    };
    const desktop = copy({
      store: 'desktop-sessions-v5',
      scope: 'global',
      slug: null,
      root: windows.reasonixStateRoot!,
      path: 'C:\\Users\\Me\\AppData\\Roaming\\reasonix\\desktop-sessions-v5\\by-id\\0123456789abcdef0123456789abcdef',
      workspace: 'C:\\Users\\Me\\My App',
      payloadRefs: 2,
    });
    const store = 'C:\\Users\\Me\\AppData\\Roaming\\reasonix\\projects\\c--users-me-my app\\sessions-v4';
    expect(resumeVerdict(desktop, null, [], windows)).toMatchObject({
      reason: 'desktop-store',
      copiesSession: true,
      command:
        `xcopy /E /I /Q /Y ${desktop.path} "${store}\\0123456789abcdef0123456789abcdef" && ` +
        `xcopy /E /I /Q /Y C:\\Users\\Me\\AppData\\Roaming\\reasonix\\desktop-sessions-v5\\by-id\\.content-v1 "${store}\\.content-v1" && ` +
        'cd /d "C:\\Users\\Me\\My App" && reasonix --resume 0123456789abcdef0123456789abcdef',
    });
    const mixedCase = copy({ slug: 'C--Users-Me-Other', root: windows.reasonixStateRoot!, path: 'x', workspace: null });
    expect(resumeVerdict(mixedCase, null, [], windows).resumes).toBe(true);
  });
});
