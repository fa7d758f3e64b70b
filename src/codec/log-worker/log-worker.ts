// A log worker's thread (see log-worker-protocol.ts): its entry, serving the reads its parent asks for.
import { parentPort } from 'node:worker_threads';
import { serveLogReads } from './serve-log-reads.js';

serveLogReads(parentPort!);
