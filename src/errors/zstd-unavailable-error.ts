/**
 * Neither Node's built-in zstd nor the optional zstd-napi addon is there to read or write a frame.
 * Not an `RxError`: it says nothing about a session, so no reader reports it as a session's
 * damage; it leaves every read and write as it is, with what to install in its one-line message.
 */
export class ZstdUnavailableError extends Error {
  readonly code = 'RX_ZSTD_UNAVAILABLE';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ZstdUnavailableError';
  }
}
