import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readSession } from '../../../src/session/verdict/read-session.js';
import { providerMessages } from '../../../src/session/replay/views.js';
import { asSent } from '../../support/reasonix/as-sent.js';
import { appendBatch, copySession } from '../../support/faults/faults.js';
import { fixture } from '../../support/fixtures.js';
import { reasonixBinary, reasonixTitle, resumeWithReasonix } from '../../support/reasonix/reasonix.js';

/**
 * Text Go reads otherwise than JavaScript: a lone surrogate escape, and invalid UTF-8 in a string
 * (Go gives U+FFFD for each byte it cannot take, a WHATWG decoder one for a cut sequence). A
 * message holding each is appended to a session Reasonix wrote; rxstore's model view must be what
 * the real Reasonix sends the model when it resumes the session.
 */
const source = fixture('plain-chat');

const contents: [string, Buffer][] = [
  ['a lone high surrogate escape', Buffer.from('\\ud800')],
  ['a lone low surrogate escape', Buffer.from('\\uDC00x')],
  ['a high surrogate escape before a pair', Buffer.from('\\ud800\\ud800\\ude00')],
  ['a pair of surrogate escapes', Buffer.from('\\ud83d\\ude00')],
  ['a three-byte sequence cut short', Buffer.from([0xe2, 0x82, 0x41])],
  ['a four-byte sequence cut short', Buffer.from([0xf0, 0x9f, 0x98, 0x41])],
  ['a four-byte sequence cut at the end of the string', Buffer.from([0xf0, 0x9f, 0x98])],
  ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ['an overlong NUL', Buffer.from([0xc0, 0x80])],
  ['bytes no sequence starts with', Buffer.from([0xff, 0x41, 0x80])],
  ['a code point past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
];

describe.skipIf(!reasonixBinary())(reasonixTitle('strings read as Go reads them, judged by Reasonix 1.38.11'), () => {
  it.concurrent.each(contents)('%s: the model view is what Reasonix sends', async (_, bytes) => {
    const dir = await copySession(source.dir);
    const payloadJson = Buffer.concat([
      Buffer.from('{"message":{"role":"user","id":"text-1","content":"<'),
      bytes,
      Buffer.from('>"}}'),
    ]);
    await appendBatch(dir, [{ kind: 'message/complete', payloadJson }]);
    const read = await readSession(dir);
    const run = await resumeWithReasonix(dir, { workspace: source.workspace, prompt: 'Resume check: say ok.' });
    await rm(run.home, { recursive: true, force: true });
    expect(run.code).toBe(0);
    expect(read.status).toBe('ok');
    const sent = run.requests[0]!.messages.map(asSent);
    // Reasonix appends the new turn: its host session-context message and the typed prompt.
    expect(sent.slice(0, -2)).toEqual(providerMessages(read.projection));
    expect(sent.at(-3)!.content).toMatch(/^<.*>$/su);
  });
});
