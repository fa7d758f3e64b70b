// A summary worker's thread (see summary-pool-protocol.ts): its entry, serving the summaries its listing asks for.
import { parentPort } from 'node:worker_threads';
import { setLogWorkers } from '../../../codec/log-worker/log-worker-pool.js';
import { serveSummaries } from './serve-summaries.js';

// Every core already has a reader (a summary worker or the listing's thread): a log is decoded on the thread that summarises it.
setLogWorkers(0);
serveSummaries(parentPort!);
