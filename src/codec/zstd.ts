import { createZlibZstdBackend } from './zlib-zstd-backend.js';
import { createZstdNapiBackend } from './zstd-napi-backend.js';
import type { ZstdBackend } from './zstd-backend.js';

/**
 * The backend chosen at load: Node's built-in zstd where the running Node has it (no native
 * addon call per frame beyond Node's own), else zstd-napi.
 */
export const zstd: ZstdBackend = createZlibZstdBackend() ?? createZstdNapiBackend();
