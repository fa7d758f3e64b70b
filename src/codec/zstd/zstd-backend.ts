/**
 * The one thing rxstore asks of zstd (house style: one small interface, one file per backend).
 * Frames are written as Reasonix writes them (docs/format.md §3.2): level 1, content checksum and content
 * size on, window ≤ 1 MiB, one frame per record.
 */
export interface ZstdBackend {
  readonly name: string;
  /** One zstd frame holding `raw`. */
  compress(raw: Uint8Array): Buffer;
  /**
   * The content of `frame`, which must decode to exactly `rawSize` bytes. Output beyond
   * `rawSize` is never produced; a shorter or longer result throws `ZstdSizeMismatch`. Given
   * `into` (at least `rawSize + 1` bytes), a backend may decode there and return a view of it.
   */
  decompress(frame: Uint8Array, rawSize: number, into?: Buffer): Buffer;
}

/** Reasonix's encoder: klauspost "SpeedFastest" with a 1 MiB window (docs/format.md §3.2). */
export const WRITE_LEVEL = 1;
export const WRITE_WINDOW_LOG = 20;
