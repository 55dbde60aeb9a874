import { CHUNK_PIECE_MAX } from '../handler-plan.js';
import { generatedText } from '../json-payload.js';
import type { ChunkCut } from './policy.js';

/**
 * SPEC "GET /stream": a chunk is at most 1 MB, so a larger one is split into pieces of at most
 * CHUNK_PIECE_MAX; a chunk of the default small object (`bytes` < 0) is one piece.
 */
export const SPEC_CHUNK_CUT: ChunkCut = {
  perChunk: (bytes) => (bytes <= CHUNK_PIECE_MAX ? 1 : Math.ceil(bytes / CHUNK_PIECE_MAX)),
  pieceBytes: (bytes) => (bytes < 0 ? 64 : Math.max(64, Math.min(CHUNK_PIECE_MAX, bytes))),
  piece: (bytes, p, per) => {
    const chunk = Math.floor(p / per);
    if (bytes < 0) return { chunk, text: `chunk ${String(chunk)}` };
    return generatedText(Math.min(CHUNK_PIECE_MAX, bytes - (p % per) * CHUNK_PIECE_MAX));
  },
};
