/**
 * rxstore's library: what indexers, backup and migration scripts import. Never loads the CLI.
 */
export * from './codec/index.js';
