import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { captureIo } from '../helpers/cli-io.js';
import { fuzzCli } from './fuzz-run.js';

/*
 * `jobstorm fuzz` as a user meets it: every wrong flag named at once with nothing sent, budgets by
 * time and at the first finding, an interrupt that still writes the report, and the report's files.
 */

describe('jobstorm fuzz: flags', () => {
  it('names every wrong flag at once and sends nothing (exit 2)', async () => {
    const io = captureIo();
    const code = await runCli(
      ['fuzz', '--seed', '1.5', '--duration', '5x', '--sequences', '0', '--fault', 'nosuch', '--max-jobs', '0'],
      io,
    );
    expect(code).toBe(2);
    const text = io.stderr.join('\n');
    for (const flag of ['--seed', '--duration', '--sequences', '--fault', '--max-jobs']) expect(text).toContain(flag);
    expect(text).toContain('unknown fault "nosuch"');
  });

  it('names a background load that does not load, with the flags', async () => {
    const io = captureIo();
    const code = await runCli(['fuzz', '--load', 'no/such/load.yaml', '--seed', 'x'], io);
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('--load');
    expect(io.stderr.join('\n')).toContain('--seed');
  });

  it('refuses faults and --real-time against a remote target', async () => {
    const io = captureIo({ JOBSTORM_API_KEY: 'k' });
    const code = await runCli(
      ['fuzz', '--target', 'http://127.0.0.1:9/v2/ep', '--fault', 'retry-any', '--real-time', '--sequences', '1'],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/--fault.*embedded emulator/);
    expect(io.stderr.join('\n')).toMatch(/--real-time.*embedded emulator/);
  });
});

describe('jobstorm fuzz: budgets and reports', () => {
  it('stops at the first finding and writes the report, the finding and its reproduction', async () => {
    const { code, report, md, out } = await fuzzCli(['--seed', '1', '--fault', 'retry-any', '--first-finding', '--sequences', '1000']);
    expect(code).toBe(1);
    expect(report.stoppedBy).toBe('finding');
    expect(report.faults).toEqual(['retry-any']);
    const [f] = report.findings;
    expect(f?.id).toBe('lifecycle.retry-not-allowed');
    expect(md).toContain('## Findings');
    expect(md).toContain('### lifecycle.retry-not-allowed');
    expect(md).toMatch(/shrunk from \d+ jobs?\/\d+ calls? to 1 job\/2 calls/);
    if (!f) return;
    const trace = readFileSync(join(out, f.files.trace), 'utf8').trim().split('\n');
    expect(trace.map((l) => JSON.parse(l) as unknown)).toEqual(f.jobs);
    const repro = readFileSync(join(out, f.files.scenario), 'utf8');
    expect(repro).toContain('jobstorm run repro.yaml');
    expect(repro).toContain('retry-any');
    const records = readFileSync(join(out, f.files.records), 'utf8').trim().split('\n');
    // Every example cites a record of the smallest run, which is in the file.
    const seqs = new Set(records.map((l) => (JSON.parse(l) as { seq?: number }).seq));
    for (const v of f.examples) if (v.evidence.seq !== undefined) expect(seqs.has(v.evidence.seq)).toBe(true);
  }, 300_000);

  it('runs a background load beside every trial, and still finds and shrinks under it', async () => {
    const load = join(mkdtempSync(join(tmpdir(), 'jobstorm-fuzz-load-')), 'load.yaml');
    writeFileSync(
      load,
      [
        'name: background',
        'phases: [{ duration: 2m, rate: 5 }]',
        'flows:',
        '  - name: submit-and-poll',
        '    steps: [{ run: { input: { sleep_ms: 200 } } }, { poll: { until: final, interval: 500ms } }]',
        '',
      ].join('\n'),
    );
    const { code, report, md } = await fuzzCli(['--seed', '1', '--fault', 'retry-any', '--first-finding', '--sequences', '200', '--load', load]);
    expect(code).toBe(1);
    expect(report.findings[0]?.id).toBe('lifecycle.retry-not-allowed');
    expect(report.load?.calls ?? 0).toBeGreaterThan(50);
    expect(md).toContain('Beside a background load');
  }, 300_000);

  it('stops by time, on the clock it runs on', async () => {
    const { code, report } = await fuzzCli(['--seed', '2', '--duration', '90s']);
    expect(code).toBe(0);
    expect(report.stoppedBy).toBe('time');
    expect(report.trials).toBeGreaterThan(0);
    expect(report.durationMs).toBeGreaterThanOrEqual(90_000);
  }, 300_000);

  it('an interrupt stops it, and what was tried is still written (exit 130)', async () => {
    let abort: (() => void) | undefined;
    const outcome = fuzzCli(['--seed', '3', '--duration', '1h'], {
      onClock: (clock) => {
        clock.schedule(200_000, () => abort?.());
      },
      onIo: (io) => {
        abort = () => io.controller.abort();
      },
    });
    const { code, report, out } = await outcome;
    expect(code).toBe(130);
    expect(report.verdict).toBe('interrupted');
    expect(report.trials).toBeGreaterThan(0);
    expect(existsSync(join(out, 'fuzz.md'))).toBe(true);
  }, 300_000);
});
