import { LIMITS } from '../../contracts/queue/limits.js';
import type { SubmissionBody } from '../../contracts/queue/schemas.js';
import type { RequestFacts } from '../core/record.js';

/** A string no real input contains, replaced by the padding. */
const MARKER = 'jobstorm\u0001pad\u0001marker';

/**
 * A submission body of exactly `bytes` bytes, as one Buffer: the body's JSON with one string field
 * of `input` (default `pad`) grown to fill the size. The JSON is written straight into the buffer,
 * so a 20 MB probe never exists twice (no string that is then copied into bytes).
 */
export function sizedSubmission(bytes: number, base: SubmissionBody = { input: {} }, field = 'pad'): Buffer {
  const out = paddedSubmission(bytes, base, field);
  if (out !== undefined) return out;
  const least = Buffer.byteLength(JSON.stringify({ ...base, input: { ...base.input, [field]: '' } }));
  throw new RangeError(`a body of ${String(bytes)} bytes cannot hold this submission (needs ${String(least)})`);
}

/** As `sizedSubmission`, or undefined when the submission does not fit in `bytes` (a replayed trace's size). */
export function paddedSubmission(
  bytes: number,
  base: SubmissionBody = { input: {} },
  field = 'pad',
): Buffer | undefined {
  if (!Number.isInteger(bytes) || bytes < 0)
    throw new RangeError(`body size must be a whole number of bytes, got ${String(bytes)}`);
  const json = JSON.stringify({ ...base, input: { ...base.input, [field]: MARKER } });
  const quoted = JSON.stringify(MARKER);
  const at = json.indexOf(quoted);
  const head = json.slice(0, at + 1);
  const tail = json.slice(at + quoted.length - 1);
  const headBytes = Buffer.byteLength(head);
  const tailBytes = Buffer.byteLength(tail);
  const pad = bytes - headBytes - tailBytes;
  if (pad < 0) return undefined;
  const out = Buffer.allocUnsafe(bytes);
  out.write(head, 0, 'utf8');
  out.fill(0x61, headBytes, headBytes + pad); // 'a': one byte, needs no JSON escaping
  out.write(tail, headBytes + pad, 'utf8');
  return out;
}

export type PayloadSide = 'inside' | 'outside';

/** A limits probe: a body and what the contract expects of it. */
export interface PayloadProbe {
  body: Buffer;
  bytes: number;
  facts: RequestFacts;
}

/**
 * Bodies at the edges of SPEC "Limits" (/run 10 MB, /runsync 20 MB). The spec does not say
 * decimal or binary MB, so "inside" is the decimal size (must be accepted) and "outside" one byte
 * over the binary size (must be rejected); contracts/queue/limits.ts explains the band.
 */
export function payloadProbe(op: 'run' | 'runsync', side: PayloadSide, base?: SubmissionBody): PayloadProbe {
  const band = op === 'run' ? LIMITS.runPayload : LIMITS.runsyncPayload;
  const bytes = side === 'inside' ? band.surelyAccepted : band.surelyRejected;
  return {
    body: sizedSubmission(bytes, base),
    bytes,
    facts: { probe: `payload.${op}.${side}`, expect: side === 'inside' ? 'accept' : 'reject' },
  };
}
