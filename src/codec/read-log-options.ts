/** Where in a log file to start reading, and the sequence the first batch there must carry. */
export interface ReadLogOptions {
  /** Start at this batch boundary (a cursor's offset) instead of at the log's beginning. */
  offset?: number;
  /** The sequence the first batch there must start at: 1 at the beginning. */
  nextSequence?: number;
}
