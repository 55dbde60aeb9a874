import { afterEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/core/manual-clock.js';
import { cliClock } from '../helpers/cli-on-clock.js';
import { startPartialServer, type PartialOptions, type PartialServer } from '../foreign/partial-server.js';
import { fuzzCli } from './fuzz-run.js';

/*
 * Issue 50: against a server that is not our emulator, `jobstorm fuzz` reports its real deviations
 * and nothing false. The partial server (test/foreign) keeps jobs simply: each runs 300 ms whatever
 * its input, ignores policy.ttl, sends no webhook, limits no purge, and at will drops a finished
 * job once read or refuses to cancel a running one. It runs in this thread on the fuzz's manual clock.
 */

let server: PartialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function fuzzPartial(o: PartialOptions, clock: ManualClock, sequences = 150) {
  server = await startPartialServer({ apiKey: 'foreign-test-key', jobMs: 300, ...o, clock });
  // Shrinking is proven against the emulator; here a few runs show each finding again.
  return fuzzCli(['--seed', '1', '--sequences', String(sequences), '--shrink-runs', '20', '--target', server.base], {
    clock,
    env: { JOBSTORM_API_KEY: 'foreign-test-key' },
  });
}

const ids = (r: { report: { findings: { id: string }[] } }): string[] => r.report.findings.map((f) => f.id).sort();

describe('jobstorm fuzz against a foreign server', () => {
  it('reports what the plain server really breaks, each with records that show it', async () => {
    const clock = cliClock();
    const r = await fuzzPartial({}, clock);
    expect(r.code).toBe(1);
    // Each is true of it: ttl is not enforced, no webhook is ever sent, /purge-queue has no limit.
    expect(ids(r)).toEqual(['lifecycle.ttl-ignored', 'ratelimit.not-enforced', 'webhook.missing']);
    for (const f of r.report.findings) {
      expect(f.examples[0]?.evidence.request ?? f.examples[0]?.evidence.timeline, f.id).toBeDefined();
      expect(f.reproduced, f.id).toBe(true);
    }
  }, 300_000);

  it('reports a job dropped once read, and a cancel refused to a running job', async () => {
    const dropped = await fuzzPartial({ dropAfterRead: true }, cliClock());
    expect(ids(dropped)).toContain('lifecycle.lost');
    await server?.close();
    server = undefined;
    const refused = await fuzzPartial({ cancelQueuedOnly: true }, cliClock());
    const cancel = refused.report.findings.find((f) => f.id === 'route.missing');
    expect(cancel?.examples[0]?.message).toMatch(/does not serve cancel: it answered 404 for job \S+, which status then showed to exist/);
    expect(cancel?.jobs.flatMap((j) => j.actions ?? []).some((a) => a.op === 'cancel')).toBe(true);
  }, 300_000);
});
