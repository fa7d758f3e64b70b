import { defineConfig } from 'vitest/config';
import base from './vitest.mutate.config.js';

// The codec's own tests, for mutating the zstd backends and the Go-compatible decoding below the log: a
// survivor there is otherwise run against every in-process test of the session layer (minutes per mutant).
// Narrower than the whole set, so a score measured with it is a floor of the whole set's. Without the
// worker's tests, for the reason given in vitest.mutate-unshared.config.ts.
// By what they test, not by name: Go's decoding of payloads (replay-go-decode, payload-rules) and the
// operation ledgers (compact-storage) are codec code whose tests sit beside the session's.
const codecTests = /^test\/(codec-|content-store|fixtures-decode|zstd-|replay-go-decode|payload-rules|compact-storage)/;
const include = base.test!.include!.filter((file) => codecTests.test(file));
export default defineConfig({ ...base, test: { ...base.test, include } });
