// An index reader's thread (see index-readers-protocol.ts): its entry, reading the sessions its search index asks for.
import { parentPort } from 'node:worker_threads';
import { setLogWorkers } from '../../codec/log-worker/log-worker-pool.js';
import { serveIndexSteps } from './serve-index-steps.js';

// The update's thread writes what this one reads: a log is decoded here, on the thread that reads it.
setLogWorkers(0);
serveIndexSteps(parentPort!);
