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
      'test/records-and-hygiene.test.ts',
      'test/follow-across-rewrites.test.ts',
      'test/cursor-validation.test.ts',
      'test/writer-locks.test.ts',
      'test/codec/log-read-in-worker.test.ts',
      'test/codec/serve-log-reads.test.ts',
      // The session layer's in-process tests. Some files also drive the real Reasonix or the CLI in a
      // test or two: with per-test coverage a mutant runs only the tests that reach it in process.
      'test/codec/compact-storage.test.ts',
      'test/opened-session-reads-once.test.ts',
      'test/records-since.test.ts',
      'test/damage-is-never-silent.test.ts',
      'test/salvage-past-damage.test.ts',
      'test/repair-salvage.test.ts',
      'test/library-follow.test.ts',
      // Reading and verifying a session directory, and reading since a cursor.
      'test/read-session-verdicts.test.ts',
      // One Reasonix run for the file (a session it resumed, with its recovery cache); each test reads in process.
      'test/recovery-cache-in-process.test.ts',
      'test/blocked-files-in-process.test.ts',
      'test/session-metadata-files.test.ts',
      'test/follow-session.test.ts',
      'test/records-cursor-carry.test.ts',
      'test/cursor-edges.test.ts',
      'test/torn-tail-cut-mid-read.test.ts',
      // The session writer (create, append, validate, repair, salvage) in process.
      'test/writer-refusals-in-process.test.ts',
      'test/create-session-in-process.test.ts',
      'test/append-batches-in-process.test.ts',
      'test/repair-session-in-process.test.ts',
      'test/salvage-session-in-process.test.ts',
      // The replay: projection, model list, turns, hygiene, index records, inspect's report, Go decoding.
      'test/replay-projection.test.ts',
      'test/replay-hygiene-inspect.test.ts',
      'test/replay-index-records.test.ts',
      'test/replay-go-decode.test.ts',
      // The replay's payload rules, transcript index and views.
      'test/payload-rules.test.ts',
      'test/transcript-views.test.ts',
      'test/message-summaries.test.ts',
      'test/strict-payload-refusal.test.ts',
      'test/jsonl-lenient-messages.test.ts',
      'test/accepted-payloads-are-replayed.test.ts',
      'test/seen-ids.test.ts',
      'test/since-refuses-what-read-refuses.test.ts',
      'test/io-error-is-not-damage.test.ts',
      'test/log-replaced-mid-read.test.ts',
      'test/log-shrunk-during-repair.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
