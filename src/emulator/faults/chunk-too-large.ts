import { LIMITS } from '../../../contracts/queue/limits.js';
import { generatedText } from '../json-payload.js';
import type { ChunkCut } from '../policy/policy.js';
import { defineFault } from './fault.js';

/** Every chunk is one piece, padded past 1 MiB. */
const OVERSIZE_CUT: ChunkCut = {
  perChunk: () => 1,
  pieceBytes: (bytes) => Math.max(bytes, LIMITS.streamChunk.surelyRejected),
  piece: (bytes) => generatedText(Math.max(bytes, LIMITS.streamChunk.surelyRejected)),
};

export const chunkTooLarge = defineFault(
  'chunk-too-large',
  'streamed chunks are not split at 1 MB; each is padded past 1 MiB',
  ['stream.chunk-too-large'],
  () => ({ chunkCut: () => OVERSIZE_CUT }),
);
