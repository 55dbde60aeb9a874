import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { parseRunFlags } from '../../src/cli/run/run-flags.js';
import type { ConfigIssue } from '../../src/core/config-error.js';
import { ExitCode } from '../../src/core/exit-code.js';
import { mergeSummaries } from '../../src/report/summary-merge.js';
import { announcementFile } from '../../src/session/barrier/barrier-files.js';
import { parseRfc3339 } from '../../src/session/barrier/rfc3339.js';
import { captureIo } from '../helpers/cli-io.js';
import { tempDir } from '../e2e/helpers.js';
import { shardSummary } from '../report/fixtures/fixture-summary.js';

/* Issue 38: --barrier, --start-at and --local-address as configuration, and a merge with a shard missing. */

const NOW = Date.parse('2026-05-01T02:00:00Z');

function issuesOf(args: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  parseRunFlags({ scenario: 's.yaml', ...args }, issues, NOW);
  return issues;
}

describe('--start-at, --barrier, --local-address', () => {
  it('reads RFC 3339 instants with their zone only', () => {
    expect(parseRfc3339('2026-05-01T02:00:30Z')).toBe(NOW + 30_000);
    expect(parseRfc3339('2026-05-01T04:00:30.5+02:00')).toBe(NOW + 30_500);
    for (const bad of ['2026-05-01T02:00:30', '2026-05-01', 'tomorrow', '1714528830', '2026-13-01T02:00:00Z'])
      expect(parseRfc3339(bad), bad).toBeUndefined();
  });

  it('a bad or past instant is a configuration error naming --start-at; a future one is taken', () => {
    expect(issuesOf({ 'start-at': 'in five minutes' })).toEqual([
      {
        where: '--start-at',
        message:
          'expected an RFC 3339 instant with its zone, like 2026-05-01T02:00:30Z, got "in five minutes"',
      },
    ]);
    const past = issuesOf({ 'start-at': '2026-05-01T01:59:00Z' });
    expect(past).toHaveLength(1);
    expect(past[0]?.where).toBe('--start-at');
    expect(past[0]?.message).toContain('is 1m in the past');
    const flags = parseRunFlags({ scenario: 's.yaml', 'start-at': '2026-05-01T02:01:00Z' }, [], NOW);
    expect(flags.together).toEqual({ kind: 'start-at', atMs: NOW + 60_000 });
  });

  it('--barrier needs --shard, excludes --start-at and --workers; --barrier-timeout needs --barrier', () => {
    expect(issuesOf({ barrier: '/tmp/b' }).map((i) => i.where)).toEqual(['--barrier']);
    expect(issuesOf({ barrier: '/tmp/b', shard: '1/2', 'start-at': '2026-05-01T02:01:00Z' })).toEqual([
      { where: '--barrier', message: 'give --barrier or --start-at, not both' },
    ]);
    expect(issuesOf({ 'barrier-timeout': '1m' }).map((i) => i.where)).toEqual(['--barrier-timeout']);
    expect(
      issuesOf({ barrier: '/tmp/b', shard: '1/2', 'barrier-timeout': '0s' }).map((i) => i.where),
    ).toEqual(['--barrier-timeout']);
    expect(issuesOf({ workers: 2, 'start-at': '2026-05-01T02:01:00Z' }).map((i) => i.where)).toEqual([
      '--start-at',
    ]);
    const flags = parseRunFlags({ scenario: 's.yaml', shard: '2/3', barrier: '/tmp/b' }, [], NOW);
    expect(flags.together).toEqual({ kind: 'barrier', folder: '/tmp/b', timeoutMs: 300_000 });
  });

  it('--local-address must be an IP address', () => {
    expect(issuesOf({ 'local-address': 'localhost' })).toEqual([
      { where: '--local-address', message: 'expected an IP address like 127.0.0.2, got "localhost"' },
    ]);
    expect(parseRunFlags({ scenario: 's.yaml', 'local-address': '127.0.0.3' }, [], NOW).localAddress).toBe(
      '127.0.0.3',
    );
  });

  it('a shard that already came to the barrier is refused (exit 2) before anything is sent', async () => {
    const dir = await tempDir('barrier-twice');
    const barrier = join(dir, 'barrier');
    await mkdir(barrier, { recursive: true });
    await writeFile(join(barrier, announcementFile(2, 3)), '{}');
    const scenario = join(dir, 's.yaml');
    await writeFile(
      scenario,
      'name: twice\nphases:\n  - { duration: 1s, rate: 1 }\nflows:\n  - name: f\n    steps:\n      - run: { input: {} }\n',
    );
    const io = captureIo();
    const code = await runCli(
      [
        'run',
        scenario,
        '--target',
        'http://127.0.0.1:9/v2/e',
        '--api-key',
        'k',
        '--shard',
        '2/3',
        '--barrier',
        barrier,
      ],
      io,
    );
    expect(code).toBe(ExitCode.Usage);
    expect(io.stderr.join('\n')).toContain('shard 2/3 already came to');
  });
});

describe('a merge with a shard missing', () => {
  it('names the missing shard and is partial (interrupted), whatever the others say', () => {
    const merged = mergeSummaries([shardSummary('1/2')], { missing: ['shard-2'] });
    expect(merged.run.missingShards).toEqual(['2/2']);
    expect(merged.run.end).toBe('shard-failed');
    expect(merged.verdict.status).toBe('interrupted');
    expect(merged.verdict.reasons[0]).toBe(
      'shard 2/2 left no summary (failed, or never ran): results are partial',
    );
  });
});
