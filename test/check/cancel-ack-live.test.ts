import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { JobstormRecord } from '../../src/core/record.js';
import type { Summary } from '../../src/report/summary.js';
import { captureIo } from '../helpers/cli-io.js';
import { startCancelAckServer, type CancelAckServer } from './cancel-ack-server.js';

/*
 * The exchange cancel-acknowledged.test.ts judges from a saved stream, made live: a run of the CLI
 * against a server that acknowledges a cancel with IN_PROGRESS and shows CANCELLED later.
 */
let server: CancelAckServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runAgainst(
  s: CancelAckServer,
  scenario: string,
): Promise<{ summary: Summary; records: JobstormRecord[] }> {
  const out = mkdtempSync(join(tmpdir(), 'jobstorm-cancel-ack-'));
  const io = captureIo({ JOBSTORM_API_KEY: 'cancel-ack-key' });
  const file = new URL(`./fixtures/${scenario}.yaml`, import.meta.url).pathname;
  await runCli(['run', file, '--target', s.base, '--out', out, '--record', '--quiet'], io);
  const records = readFileSync(join(out, 'records.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JobstormRecord);
  return { summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary, records };
}

const fired = (s: Summary): Record<string, number> =>
  Object.fromEntries(s.violations.map((v) => [v.id, v.count]));

describe('a server that acknowledges a cancel before it takes effect (live)', () => {
  it('a cancel answered IN_PROGRESS, then CANCELLED: no finding, the verdict passes', async () => {
    server = await startCancelAckServer();
    const { summary, records } = await runAgainst(server, 'cancel-ack');
    const cancels = records.filter((r) => r.type === 'exchange' && r.op === 'cancel');
    expect(cancels.map((r) => r.type === 'exchange' && (r.body as { status?: string }).status)).toEqual([
      'IN_PROGRESS',
      'IN_PROGRESS',
      'IN_PROGRESS',
    ]);
    expect(summary.jobs.byState.CANCELLED).toBe(3);
    expect(fired(summary)).toEqual({});
    expect(summary.verdict.status).toBe('passed');
  }, 60_000);

  it('the same server cancelling jobs nobody asked it to: transition.cancelled-unprompted per job', async () => {
    server = await startCancelAckServer({ cancelsOnItsOwn: true });
    const { summary } = await runAgainst(server, 'cancel-unprompted');
    expect(fired(summary)).toEqual({ 'transition.cancelled-unprompted': 3 });
  }, 60_000);
});
