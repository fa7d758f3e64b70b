import { defineConfig } from 'vitest/config';
import base from './vitest.mutate.config.js';

// The codec's own tests, for mutating the zstd backends and the Go-compatible decoding below the log: a
// survivor there is otherwise run against every in-process test of the session layer (minutes per mutant).
// Narrower than the whole set, so a score measured with it is a floor of the whole set's. Without the
// worker's tests (test/codec/log-read-in-worker, serve-log-reads), for the reason given in vitest.mutate-unshared.config.ts.
// By what they test, not by folder: Go's decoding of payloads (replay-go-decode, payload-rules) is codec
// code whose tests sit in the replay's room.
const codecTests =
  /^test\/(codec\/(?!log-read-in-worker|serve-log-reads)|session\/replay\/(replay-go-decode|payload-rules)\.)/;
const include = base.test!.include!.filter((file) => codecTests.test(file));
export default defineConfig({ ...base, test: { ...base.test, include } });
