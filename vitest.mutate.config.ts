import { defineConfig } from 'vitest/config';

// The tests `npm run mutate` judges mutants by: the fast, in-process tests of the codec and the
// session layer. Tests that drive the real Reasonix or run the built CLI in a child process are left
// out here (they are in `npm test`): a child process never runs the mutant, and a Reasonix run per
// mutant would take hours.
export default defineConfig({
  test: {
    include: [
      'test/codec/codec-chunking.test.ts',
      'test/codec/codec-round-trip.test.ts',
      'test/codec/codec-spec-vector.test.ts',
      'test/codec/codec-fault-matrix.test.ts',
      'test/codec/codec-batch-rules.test.ts',
      'test/codec/codec-encode-batch.test.ts',
      'test/codec/codec-frame-rules.test.ts',
      'test/codec/go-json/codec-go-json.test.ts',
      'test/codec/go-json/codec-go-text.test.ts',
      'test/codec/go-json/codec-json-text.test.ts',
      'test/codec/go-json/codec-go-number-literals.test.ts',
      'test/codec/go-json/codec-go-time.test.ts',
      'test/codec/content-store.test.ts',
      'test/codec/content-store-rules.test.ts',
      'test/codec/content-store-errors.test.ts',
      'test/codec/fixtures-decode.test.ts',
      'test/codec/zstd/zstd-backends.test.ts',
      'test/codec/zstd/zstd-frame-end.test.ts',
      'test/codec/zstd/zstd-zlib-fallbacks.test.ts',
      'test/session/reading/records-and-hygiene.test.ts',
      'test/session/cursors/follow-across-rewrites.test.ts',
      'test/session/cursors/cursor-validation.test.ts',
      'test/session/writing/writer-locks.test.ts',
      'test/codec/log-read-in-worker.test.ts',
      'test/codec/serve-log-reads.test.ts',
      // The session layer's in-process tests. Some files also drive the real Reasonix or the CLI in a
      // test or two: with per-test coverage a mutant runs only the tests that reach it in process.
      'test/codec/compact-storage.test.ts',
      'test/session/reading/opened-session-reads-once.test.ts',
      'test/session/cursors/records-since.test.ts',
      'test/session/reading/damage-is-never-silent.test.ts',
      'test/session/writing/salvage-past-damage.test.ts',
      'test/session/writing/repair-salvage.test.ts',
      'test/session/cursors/library-follow.test.ts',
      // Reading and verifying a session directory, and reading since a cursor.
      'test/session/reading/read-session-verdicts.test.ts',
      // One Reasonix run for the file (a session it resumed, with its recovery cache); each test reads in process.
      'test/session/reading/recovery-cache-in-process.test.ts',
      'test/session/reading/blocked-files-in-process.test.ts',
      'test/session/reading/session-metadata-files.test.ts',
      'test/session/cursors/follow-session.test.ts',
      'test/session/cursors/records-cursor-carry.test.ts',
      'test/session/cursors/cursor-edges.test.ts',
      'test/session/cursors/torn-tail-cut-mid-read.test.ts',
      // The session writer (create, append, validate, repair, salvage) in process.
      'test/session/writing/writer-refusals-in-process.test.ts',
      'test/session/writing/create-session-in-process.test.ts',
      'test/session/writing/append-batches-in-process.test.ts',
      'test/session/writing/repair-session-in-process.test.ts',
      'test/session/writing/salvage-session-in-process.test.ts',
      // The replay: projection, model list, turns, hygiene, index records, inspect's report, Go decoding.
      'test/session/replay/replay-projection.test.ts',
      'test/session/replay/replay-hygiene-inspect.test.ts',
      'test/session/replay/replay-index-records.test.ts',
      'test/session/replay/replay-go-decode.test.ts',
      // The replay's payload rules, transcript index and views.
      'test/session/replay/payload-rules.test.ts',
      'test/session/replay/transcript-views.test.ts',
      'test/session/replay/message-summaries.test.ts',
      'test/session/replay/strict-payload-refusal.test.ts',
      'test/session/replay/jsonl-lenient-messages.test.ts',
      'test/session/replay/accepted-payloads-are-replayed.test.ts',
      'test/session/replay/seen-ids.test.ts',
      'test/session/reading/since-refuses-what-read-refuses.test.ts',
      'test/edges/io-error-is-not-damage.test.ts',
      'test/session/cursors/log-replaced-mid-read.test.ts',
      'test/session/writing/log-shrunk-during-repair.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
