import { randomFillSync } from 'node:crypto';

/*
 * Job ids in the real service's shape: a UUID v4 with "-u1" after it, "sync-" before it for
 * /runsync (real-service.md). Built byte by byte into one buffer and decoded once, so each id is
 * a single flat 39-byte string: crypto.randomUUID() returns a string glued from ~20 pieces, which
 * a million retained jobs pay for in rope nodes (about 0.5 KB each until flattened).
 */

const HEX = Buffer.from('0123456789abcdef');
const DASH = 0x2d;
const SUFFIX = Buffer.from('-u1');
const SYNC = Buffer.from('sync-');
const random = Buffer.alloc(4096);
let offset = random.length;
const out = Buffer.alloc(SYNC.length + 36 + SUFFIX.length);

export function newJobId(sync: boolean): string {
  if (offset + 16 > random.length) {
    randomFillSync(random);
    offset = 0;
  }
  let p = 0;
  if (sync) p += SYNC.copy(out, 0);
  for (let i = 0; i < 16; i++) {
    let b = random[offset + i] as number;
    if (i === 6) b = (b & 0x0f) | 0x40;
    else if (i === 8) b = (b & 0x3f) | 0x80;
    out[p++] = HEX[b >> 4] as number;
    out[p++] = HEX[b & 0x0f] as number;
    if (i === 3 || i === 5 || i === 7 || i === 9) out[p++] = DASH;
  }
  offset += 16;
  p += SUFFIX.copy(out, p);
  return out.toString('latin1', 0, p);
}

const ID_SHAPE = /^(?:sync-)?[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-u1$/;

/** Whether `id` has the shape of the ids newJobId issues. */
export function isJobId(id: string): boolean {
  return ID_SHAPE.test(id);
}
