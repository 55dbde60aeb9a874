import { describe, expect, it } from 'vitest';
import { operationTimeoutMs } from '../../src/client/operation-timeout.js';

/* Issue 12: without target.timeout, each call gets a timeout that fits it; with it, that one applies. */

describe('operationTimeoutMs', () => {
  it('seconds for quick calls, longer for uploads, the wait plus grace for long polls', () => {
    for (const op of ['status', 'stream', 'cancel', 'retry', 'purge-queue', 'health'] as const)
      expect(operationTimeoutMs(op, undefined), op).toBe(10_000);
    expect(operationTimeoutMs('run', undefined)).toBe(30_000);
    expect(operationTimeoutMs('runsync', undefined)).toBe(100_000);
    expect(operationTimeoutMs('runsync', 5000)).toBe(15_000);
    expect(operationTimeoutMs('status-sync', 300_000)).toBe(310_000);
  });
});
