import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseGates } from '../../src/compare/gate.js';

/*
 * The nightly's compare job: it parses the workflow and runs the compare step's script with a
 * stand-in for npx that records its arguments, so the baseline hand-over (download, restore, keep,
 * save) and the exit code are checked, not just present.
 */
const root = new URL('../../', import.meta.url).pathname;

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}

interface Job {
  needs?: string;
  if?: string;
  strategy: { matrix: { scenario: string[] } };
  steps: Step[];
}

let jobs: Record<string, Job>;
let compareJob: Job;

function expand(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, expr: string) => {
    const v = values[expr];
    if (v === undefined) throw new Error(`no value for \${{ ${expr} }}`);
    return v;
  });
}

function step(id: string): Step {
  const s = compareJob.steps.find((x) => x.id === id);
  if (!s) throw new Error(`no step ${id}`);
  return s;
}

beforeAll(async () => {
  // Each scenario's shards, merge and comparison live in the reusable workflow nightly.yml calls.
  const wf = parse(await readFile(join(root, 'deploy/github-actions/jobstorm-scenario.yml'), 'utf8')) as {
    jobs: Record<string, Job>;
  };
  jobs = wf.jobs;
  const c = jobs.compare;
  if (!c) throw new Error('no compare job');
  compareJob = c;
});

describe('the nightly workflow: tonight against the last good run', () => {
  it('runs after the merge of each scenario, on the merged report the merge uploaded', () => {
    expect(compareJob.needs).toBe('merge');
    expect(compareJob.if).toContain('!cancelled()');
    const uploaded = jobs.merge?.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.name;
    const downloaded = compareJob.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))?.with;
    expect(downloaded?.name).toBe(uploaded);
    expect(downloaded?.path).toBe('tonight');
  });

  it('restores the newest baseline and saves tonight under a key the restore finds', () => {
    const restore = step('baseline');
    expect(restore.uses).toMatch(/^actions\/cache\/restore@/);
    const prefix = String(restore.with?.['restore-keys']);
    const save = compareJob.steps.find((s) => s.uses?.startsWith('actions/cache/save'));
    expect(String(save?.with?.key).startsWith(prefix)).toBe(true);
    expect(save?.with?.path).toBe('baseline');
    expect(restore.with?.path).toBe('baseline');
    // Only a night that passed its thresholds and its gates (or the first night) becomes the baseline.
    const keep = compareJob.steps.find((s) => s.run?.includes('cp -r tonight baseline'));
    for (const s of [keep, save]) {
      expect(s?.if).toContain("steps.tonight.outputs.code == '0'");
      expect(s?.if).toContain("steps.compare.outputs.code == '0'");
      expect(s?.if).toContain("steps.baseline.outputs.cache-matched-key == ''");
    }
  });

  it('the compare step runs jobstorm compare with gates that parse, records its exit code, and the job fails with it', async () => {
    const work = await mkdtemp(join(tmpdir(), 'jobstorm-nightly-'));
    const npx = join(work, 'npx');
    await writeFile(npx, '#!/bin/sh\necho "$*" >> "$CALLS"\nexit "${FAKE_CODE:-0}"\n');
    await chmod(npx, 0o755);
    const script = expand(String(step('compare').run), { 'inputs.scenario': 'steady-load' });
    for (const code of ['0', '1', '2', '4']) {
      const calls = join(work, `calls-${code}`);
      const output = join(work, `output-${code}`);
      await writeFile(calls, '');
      await writeFile(output, '');
      await promisify(execFile)('bash', ['-c', script], {
        cwd: work,
        env: { PATH: `${work}:/usr/bin:/bin`, CALLS: calls, FAKE_CODE: code, GITHUB_OUTPUT: output },
      });
      expect(await readFile(output, 'utf8')).toBe(`code=${code}\n`);
      const call = (await readFile(calls, 'utf8')).trim();
      expect(call).toMatch(
        /^jobstorm compare baseline tonight --out compare --scenario scenarios\/steady-load\.yaml /,
      );
      const gates = [...call.matchAll(/--gate (.+?)(?= --|$)/g)].map((m) => ({
        expression: m[1] ?? '',
        where: 'nightly.yml',
      }));
      expect(gates.length).toBeGreaterThan(0);
      expect(() => parseGates(gates)).not.toThrow();
    }
    const last = compareJob.steps[compareJob.steps.length - 1];
    expect(last?.run).toBe('exit "${{ steps.compare.outputs.code || 1 }}"');
    const junit = compareJob.steps.find((s) => s.with?.report_paths !== undefined);
    expect(junit?.with?.report_paths).toBe('compare/compare-junit.xml');
  });
});
