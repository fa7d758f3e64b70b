// A child process that writes through rxstore's session writer, for the crash tests:
//   node writer-child.mjs create <store> <batches>   creates one session of that many batches
//   node writer-child.mjs append <session> <batches> appends that many batches, one call each
import { appendBatches } from '../../../dist/session/writing/append-batches.js';
import { createSession } from '../../../dist/session/writing/create-session.js';

const [mode, target, count] = process.argv.slice(2);
// Ids unique to this run, so a re-run after a kill never repeats a message id.
const run = `${process.pid}-${Date.now()}`;
const message = (role, id, content) => ({ kind: 'message/complete', payload: { message: { role, id, content } } });
const batch = (n) => ({
  operationId: `crash-writer:${run}:${n}`,
  events: [
    message('user', `q-${run}-${n}`, `question ${n}`),
    message('assistant', `a-${run}-${n}`, n % 50 === 1 ? 'x'.repeat(80_000) : `answer ${n}`),
  ],
});
const batches = Array.from({ length: Number(count) }, (_, n) => batch(n));
if (mode === 'create') {
  await createSession({
    storeDir: target,
    sessionId: 'crash-writer-session',
    batches: [{ operationId: 'session-create', events: [message('system', 'sys', 'You are a test.')] }, ...batches],
  });
} else {
  for (const one of batches) await appendBatches(target, [one]);
}
