import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { Checker } from '../../src/check/checker.js';
import { evidenceOf } from '../../src/check/evidence.js';
import { loadOpenApiRules } from '../../src/check/openapi-rules.js';
import { FAULT_NAMES } from '../../src/emulator/faults.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import { proofRun } from './proof-run.js';
import { SCALING_PROOFS } from './scaling-scenarios.js';
import {
  ALL_OPS,
  CLOCKED,
  HEALTH_READS,
  OPENAI,
  OPENAI_RATE,
  PROBES,
  RATE,
  REQUESTS_RATE,
  RETRY_PURGE,
  RUNSYNC,
  STREAMS,
  WATCH,
  WEBHOOKS,
} from './proof-scenarios.js';

const vendorDoc = new URL('../../../shared/reference/rest-v1-openapi.json', import.meta.url).pathname;
const FAILING_HOOK: WebhookAnswers = { status: 500, failAttempts: 99 };

interface Proof {
  fault: string;
  scenario: string;
  /** Ids this fault must make fire on this scenario (each is the catalog's proof of that id). */
  ids: string[];
  webhookAnswers?: WebhookAnswers;
  openapi?: boolean;
}

const queueOps = [
  'run',
  'runsync',
  'status',
  'status-sync',
  'stream',
  'cancel',
  'retry',
  'purge-queue',
  'health',
];

/** Every check id, with the fault that breaks its rule and a scenario that exercises it. */
const PROOFS: Proof[] = [
  { fault: 'wrong-types', scenario: ALL_OPS, ids: ['schema.runsync', 'schema.status', 'schema.status-sync'] },
  {
    fault: 'malformed-bodies',
    scenario: ALL_OPS,
    ids: [
      'schema.run',
      'schema.stream',
      'schema.cancel',
      'schema.retry',
      'schema.purge-queue',
      'schema.health',
      'schema.StartPod',
      'schema.CreateEndpoint',
    ],
  },
  {
    fault: 'odd-status',
    scenario: ALL_OPS,
    ids: [
      ...queueOps.map((op) => `status.${op}`),
      'status.StartPod',
      'status.CreateEndpoint',
      'management.openapi',
    ],
    openapi: true,
  },
  { fault: 'server-errors=0.5', scenario: ALL_OPS, ids: ['server.error'] },
  { fault: 'backwards-queue', scenario: WATCH, ids: ['transition.backwards'] },
  { fault: 'backwards-status', scenario: WATCH, ids: ['transition.left-final'] },
  { fault: 'spurious-cancel', scenario: WATCH, ids: ['transition.cancelled-unprompted'] },
  { fault: 'timing-inflated', scenario: WATCH, ids: ['lifecycle.timing-inconsistent'] },
  { fault: 'health-negative', scenario: WATCH, ids: ['health.negative'] },
  { fault: 'health-decrease', scenario: HEALTH_READS, ids: ['health.counter-decreased'] },
  { fault: 'health-drift', scenario: WATCH, ids: ['health.jobs-mismatch'] },
  {
    fault: 'cancel-ignored',
    scenario: RETRY_PURGE.replace('- purge: {}', '- cancel: {}'),
    ids: ['transition.cancel-overridden'],
  },
  { fault: 'lose-jobs', scenario: CLOCKED, ids: ['lifecycle.lost'] },
  { fault: 'ttl-ignored', scenario: CLOCKED, ids: ['lifecycle.ttl-ignored'] },
  { fault: 'retention-ignored', scenario: CLOCKED, ids: ['lifecycle.retention-ignored'] },
  { fault: 'timeout-ignored', scenario: CLOCKED, ids: ['lifecycle.timeout-ignored'] },
  { fault: 'timeout-early', scenario: CLOCKED, ids: ['lifecycle.timeout-early'] },
  { fault: 'runsync-overwait', scenario: RUNSYNC, ids: ['lifecycle.runsync-wait-exceeded'] },
  { fault: 'retry-any', scenario: RETRY_PURGE, ids: ['lifecycle.retry-not-allowed'] },
  { fault: 'purge-running', scenario: RETRY_PURGE, ids: ['lifecycle.purge-running'] },
  { fault: 'purge-miscount', scenario: RETRY_PURGE, ids: ['lifecycle.purge-count'] },
  { fault: 'oversize-accepted', scenario: PROBES, ids: ['limits.payload'] },
  {
    fault: 'params-unchecked',
    scenario: PROBES,
    ids: ['limits.wait', 'limits.ttl', 'limits.execution-timeout'],
  },
  { fault: 'auth-open', scenario: PROBES, ids: ['auth.missing-key-accepted', 'auth.wrong-key-accepted'] },
  { fault: 'bare-key-rejected', scenario: PROBES, ids: ['auth.form-rejected'] },
  { fault: 'early-429', scenario: RATE, ids: ['ratelimit.early'] },
  { fault: 'no-429', scenario: RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'bad-retry-after', scenario: RATE, ids: ['ratelimit.retry-after'] },
  { fault: 'no-webhook', scenario: WEBHOOKS, ids: ['webhook.missing'] },
  { fault: 'wrong-types', scenario: WEBHOOKS, ids: ['webhook.schema'] },
  { fault: 'webhook-wrong-status', scenario: WEBHOOKS, ids: ['webhook.status-mismatch'] },
  { fault: 'webhook-duplicate', scenario: WEBHOOKS, ids: ['webhook.duplicate'] },
  {
    fault: 'no-webhook-retry',
    scenario: WEBHOOKS,
    ids: ['webhook.retry-count'],
    webhookAnswers: FAILING_HOOK,
  },
  {
    fault: 'webhook-fast-retry',
    scenario: WEBHOOKS,
    ids: ['webhook.retry-spacing'],
    webhookAnswers: FAILING_HOOK,
  },
  { fault: 'chunk-too-large', scenario: STREAMS, ids: ['stream.chunk-too-large'] },
  { fault: 'stream-after-final', scenario: STREAMS, ids: ['stream.after-final'] },
  { fault: 'stream-duplicate', scenario: STREAMS, ids: ['stream.duplicate-chunk'] },
  {
    fault: 'missing-routes',
    scenario: RETRY_PURGE.replace('- purge: {}', '- cancel: {}'),
    ids: ['route.missing'],
  },
  // Issue 13: what partial servers get wrong, from the requests probe.
  { fault: 'stream-post-only', scenario: PROBES, ids: ['request.method'] },
  { fault: 'unknown-job-found', scenario: PROBES, ids: ['request.unknown-job'] },
  { fault: 'input-optional', scenario: PROBES, ids: ['request.missing-input'] },
  // Issue 18: the OpenAI-compatible routes and /requests.
  { fault: 'openai-error-shape', scenario: OPENAI, ids: ['schema.openai'] },
  { fault: 'openai-no-done', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'openai-bad-event', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'openai-after-done', scenario: OPENAI, ids: ['schema.openai-stream'] },
  { fault: 'odd-status', scenario: OPENAI, ids: ['status.openai', 'status.requests'] },
  { fault: 'malformed-bodies', scenario: OPENAI, ids: ['schema.requests'] },
  // The rate-limit checks on both rows of the table, and on faults that break its numbers.
  { fault: 'openai-limit-low', scenario: OPENAI_RATE, ids: ['ratelimit.early'] },
  { fault: 'early-429', scenario: REQUESTS_RATE, ids: ['ratelimit.early'] },
  { fault: 'requests-limit-low', scenario: REQUESTS_RATE, ids: ['ratelimit.early'] },
  { fault: 'requests-limit-high', scenario: REQUESTS_RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'no-429', scenario: REQUESTS_RATE, ids: ['ratelimit.not-enforced'] },
  { fault: 'bad-retry-after', scenario: REQUESTS_RATE, ids: ['ratelimit.retry-after'] },
];

const nameOf = (yaml: string): string => /name: (\S+)/.exec(yaml)?.[1] ?? '?';

describe('the proof table', () => {
  it('proves every check id in the catalog with the fault the catalog names', () => {
    // The scaling proofs run in scaling.test.ts, which also holds each to firing no other check.
    for (const c of CHECK_CATALOG) {
      const proof = [...PROOFS, ...SCALING_PROOFS].find((p) => p.ids.includes(c.id));
      expect(proof, `no proof for ${c.id}`).toBeDefined();
      expect(proof?.fault.split('=')[0], c.id).toBe(c.provenBy);
    }
  });

  it('uses only faults the emulator has', () => {
    for (const p of [...PROOFS, ...SCALING_PROOFS]) expect(FAULT_NAMES).toContain(p.fault.split('=')[0]);
  });
});

describe('each check fires on the fault that breaks its rule', () => {
  it.each(PROOFS.map((p) => [`${p.fault} on ${nameOf(p.scenario)} → ${p.ids.join(', ')}`, p] as const))(
    '%s',
    async (_name, p) => {
      const openapi = p.openapi ? await loadOpenApiRules(vendorDoc) : undefined;
      const result = await proofRun(p.scenario, {
        faults: [p.fault],
        ...(p.webhookAnswers ? { webhookAnswers: p.webhookAnswers } : {}),
        ...(openapi ? { openapi } : {}),
      });
      const submitted = new Set(
        result.records.flatMap((r) =>
          r.type === 'exchange' &&
          (r.op === 'run' || r.op === 'runsync') &&
          typeof (r.body as { id?: unknown } | undefined)?.id === 'string'
            ? [(r.body as { id: string }).id]
            : [],
        ),
      );
      for (const id of p.ids) {
        expect(
          result.fired.get(id) ?? 0,
          `${id} did not fire; fired: ${[...result.fired.keys()].join(', ')}`,
        ).toBeGreaterThan(0);
        const example = result.violations.find((g) => g.id === id)?.examples[0];
        expect(
          example?.evidence.request ?? example?.evidence.timeline,
          `${id} has no evidence`,
        ).toBeDefined();
        // Checks about one job name it, and it is a job this run submitted (request.unknown-job names
        // the id the target answered for although no one ever submitted it: that is its finding).
        if (example?.jobId !== undefined && id !== 'request.unknown-job')
          expect(submitted.has(example.jobId), `${id} names ${example.jobId}`).toBe(true);
      }
      // Evidence is real: every example of every finding cites a record of this run, unchanged.
      const bySeq = new Map(
        result.records.flatMap((r) =>
          r.type === 'exchange' || r.type === 'webhook' ? [[r.seq, r] as const] : [],
        ),
      );
      for (const g of result.violations) {
        for (const e of g.examples) {
          const cited = bySeq.get(e.evidence.seq ?? -1);
          expect(cited, `${g.id} cites seq ${String(e.evidence.seq)}, not a record of the run`).toBeDefined();
          if (cited)
            expect({ ...e.evidence, timeline: undefined }).toEqual({
              ...evidenceOf(cited),
              timeline: undefined,
            });
        }
      }
    },
  );
});

describe('the faithful emulator gives no violations on the same scenarios', () => {
  const scenarios = [ALL_OPS, WATCH, CLOCKED, RUNSYNC, RETRY_PURGE, PROBES, RATE, WEBHOOKS, STREAMS, OPENAI];
  it.each(scenarios.map((s) => [nameOf(s), s] as const))('%s', async (_name, yaml) => {
    const result = await proofRun(yaml, { openapi: await loadOpenApiRules(vendorDoc) });
    expect(result.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
    expect(result.records.filter((r) => r.type === 'exchange').length).toBeGreaterThan(0);
  });

  // The two rate scenarios are the next test's, with what they must show besides silence.
  it('at the limits of the table: /requests refused from its 11th call in 10 s, /openai/* never below 400 at once, and no violation', async () => {
    const requests = await proofRun(REQUESTS_RATE);
    const answered = requests.records.flatMap((r) =>
      r.type === 'exchange' && r.op === 'requests' ? [r.status] : [],
    );
    expect(answered.filter((s) => s === 200)).toHaveLength(10);
    expect(answered.filter((s) => s === 429)).toHaveLength(4);
    expect(requests.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
    const openai = await proofRun(OPENAI_RATE);
    const statuses = openai.records.flatMap((r) =>
      r.type === 'exchange' && r.op === 'openai' ? [r.status] : [],
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);
    expect(openai.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
  }, 60_000);

  it('webhooks answered 500: three attempts 10 s apart are not a violation', async () => {
    const result = await proofRun(WEBHOOKS, { webhookAnswers: FAILING_HOOK });
    expect(result.violations.map((g) => g.id)).toEqual([]);
    expect(result.records.filter((r) => r.type === 'webhook')).toHaveLength(3);
  });

  it('offline checking of the saved records gives the same violations as live', async () => {
    const result = await proofRun(CLOCKED, { faults: ['lose-jobs'] });
    const [run, ...rest] = JSON.parse(JSON.stringify(result.records)) as typeof result.records;
    if (run?.type !== 'run') throw new Error('first record is not the run record');
    const offline = new Checker(run);
    for (const r of rest) offline.add(r);
    const again = offline.finish();
    expect(again.violations).toEqual(result.violations);
    expect(again.total).toBeGreaterThan(0);
  });
});
