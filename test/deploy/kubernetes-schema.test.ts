import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/core/exit-code.js';
import { parseRfc3339 } from '../../src/session/barrier/rfc3339.js';

/*
 * Issue 38: every manifest in deploy/kubernetes/ is validated against the Kubernetes API's own
 * JSON schemas (kubernetes-models 4.5.1, generated from the Kubernetes 1.33 OpenAPI: it knows
 * JobSpec.backoffLimitPerIndex and Container.lifecycle.stopSignal, not 1.34's fields), one class
 * per apiVersion/kind; a wrong field fails it. And the shards Job never runs a shard twice.
 */

const deploy = new URL('../../deploy/', import.meta.url).pathname;

interface Validating {
  validate(): void;
}

/** The kinds deploy/ may hold, by apiVersion/kind: a new kind is one line here. */
const MODELS: Record<string, (data: object) => Validating> = {
  'batch/v1/Job': (d) => new Job(d),
  'v1/PersistentVolumeClaim': (d) => new PersistentVolumeClaim(d),
  'v1/Secret': (d) => new Secret(d),
  'v1/ConfigMap': (d) => new ConfigMap(d),
  'v1/Service': (d) => new Service(d),
};

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Every object of a multi-document YAML text, as written. */
function objects(text: string, file: string): Obj[] {
  return parseAllDocuments(text).map((doc, i) => {
    if (doc.errors.length > 0)
      throw new Error(`${file} document ${String(i + 1)}: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (!isObj(value)) throw new Error(`${file} document ${String(i + 1)} is not an object`);
    return value;
  });
}

/** Why an object is not valid Kubernetes, or undefined when it is. */
function problem(o: Obj): string | undefined {
  const key = `${String(o.apiVersion)}/${String(o.kind)}`;
  const model = MODELS[key];
  if (!model) return `no schema for ${key}: add its class to MODELS`;
  try {
    model(o).validate();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

async function manifests(): Promise<[string, Obj[]][]> {
  const dir = join(deploy, 'kubernetes');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  return Promise.all(
    files.map(async (f): Promise<[string, Obj[]]> => [f, objects(await readFile(join(dir, f), 'utf8'), f)]),
  );
}

function at(o: Obj, ...path: string[]): unknown {
  let x: unknown = o;
  for (const k of path) x = isObj(x) ? x[k] : undefined;
  return x;
}

async function shardsJob(): Promise<Obj> {
  const all = await manifests();
  const job = all.find(([f]) => f === 'shards-job.yaml')?.[1][0];
  if (!job) throw new Error('no shards-job.yaml');
  return job;
}

describe('deploy/kubernetes against the Kubernetes API schemas', () => {
  it('every object of every manifest validates with the class of its apiVersion/kind', async () => {
    const all = await manifests();
    expect(all.map(([f]) => f)).toEqual([
      'merge-job.yaml',
      'secret.example.yaml',
      'shards-job.yaml',
      'storage.yaml',
    ]);
    for (const [file, objs] of all) {
      expect(objs.length, file).toBeGreaterThan(0);
      for (const o of objs) expect(problem(o), file).toBeUndefined();
    }
  });

  it('a manifest with a wrong field fails it, naming the field', async () => {
    const job = await shardsJob();
    const broken = (edit: (copy: Obj) => void): string | undefined => {
      const copy = structuredClone(job);
      edit(copy);
      return problem(copy);
    };
    const spec = (o: Obj): Obj => at(o, 'spec') as Obj;
    expect(broken((o) => (spec(o).backoffLimitPerIndex = 'never'))).toContain('backoffLimitPerIndex');
    expect(
      broken((o) => {
        const rules = at(o, 'spec', 'podFailurePolicy', 'rules') as Obj[];
        if (rules[0]) rules[0].action = 'FailShard';
      }),
    ).toContain('action');
    expect(broken((o) => (spec(o).completionMode = 'Numbered'))).toContain('completionMode');
    expect(broken((o) => delete spec(o).template)).toContain('template');
    expect(problem({ apiVersion: 'batch/v2', kind: 'Job' })).toContain('no schema for batch/v2/Job');
  });

  it('never twice: a failed shard fails its index (no retry), on the exit codes for configuration and unreachable target', async () => {
    const job = await shardsJob();
    const spec = at(job, 'spec') as Obj;
    expect(spec.backoffLimit).toBeUndefined();
    expect(spec.backoffLimitPerIndex).toBe(0);
    expect(spec.maxFailedIndexes).toBe(0);
    const rules = at(spec, 'podFailurePolicy', 'rules') as Obj[];
    expect(rules).toEqual([
      {
        action: 'FailIndex',
        onExitCodes: { containerName: 'shard', operator: 'In', values: [ExitCode.Usage, ExitCode.Aborted] },
      },
    ]);
    const container = (at(spec, 'template', 'spec', 'containers') as Obj[])[0] ?? {};
    expect(container.name).toBe('shard');
    // The shards meet at a barrier on the shared volume, one folder per run.
    const script = (container.args as string[]).join('\n');
    expect(script).toContain('--barrier "/reports/$RUN_ID/barrier"');
    const mounts = container.volumeMounts as Obj[];
    expect(mounts.find((m) => m.name === 'reports')?.mountPath).toBe('/reports');
  });
});

describe('deploy/github-actions: the shards start at one instant', () => {
  it('the start job prints an RFC 3339 instant that --start-at accepts, and every shard is given it', async () => {
    const text = await readFile(join(deploy, 'github-actions/jobstorm-scenario.yml'), 'utf8');
    const wf = objects(text, 'jobstorm-scenario.yml')[0] ?? {};
    const step = (at(wf, 'jobs', 'start', 'steps') as Obj[])[0] ?? {};
    const command = /\$\((date [^)]*)\)/.exec(String(step.run))?.[1] ?? '';
    expect(command).toMatch(/^date -u/);
    const { execSync } = await import('node:child_process');
    const printed = execSync(command, { encoding: 'utf8' }).trim();
    const ms = parseRfc3339(printed);
    expect(ms, printed).toBeDefined();
    // Real time: the instant was printed by a real process from the system clock.
    expect((ms ?? 0) - Date.now()).toBeGreaterThan(60_000);
    const shard = at(wf, 'jobs', 'shard') as Obj;
    const run = (shard.steps as Obj[]).find((s) => String(s.run).includes('jobstorm run')) ?? {};
    expect(String(run.run)).toContain('--start-at "$START_AT"');
    expect(at(run, 'env', 'START_AT')).toBe('${{ needs.start.outputs.at }}');
  });
});
