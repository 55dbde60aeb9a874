import { describe, expect, it } from 'vitest';
import { CHECK_CATALOG } from '../../src/check/catalog.js';
import { evidenceOf } from '../../src/check/evidence.js';
import { loadOpenApiRules, type OpenApiRules } from '../../src/check/openapi-rules.js';
import { FAULT_NAMES } from '../../src/emulator/faults.js';
import { FAULT_LIST } from '../../src/emulator/faults/fault-list.js';
import { loseJobs } from '../../src/emulator/faults/lose-jobs.js';
import { ttlIgnored } from '../../src/emulator/faults/ttl-ignored.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import { MANAGEMENT_OPENAPI } from '../helpers/management-openapi.js';
import { exactProofProblems } from './exact-proof.js';
import { proofRun, type ProofResult } from './proof-run.js';
import { SCALING_PROOFS } from './scaling-scenarios.js';
import { CLOCKED, OPENAI_RATE, REQUESTS_RATE, WEBHOOKS } from './proof-scenarios.js';
import { FAILING_HOOK, faultOf, nameOf, PROOFS } from './proof-table.js';
import { FoldedChecker } from '../helpers/folded.js';

/** The OpenAPI rules judge the management calls: loaded where a scenario makes them. */
const openapiFor = async (yaml: string): Promise<OpenApiRules | undefined> =>
  yaml.includes('probe: management') ? loadOpenApiRules(MANAGEMENT_OPENAPI) : undefined;

/** The same scenario and options on the faithful emulator, run once per scenario and webhook answer. */
const faithfulRuns = new Map<string, Promise<ProofResult>>();
function faithful(yaml: string, webhookAnswers?: WebhookAnswers): Promise<ProofResult> {
  const key = `${yaml}\n${JSON.stringify(webhookAnswers ?? null)}`;
  let run = faithfulRuns.get(key);
  if (!run) {
    run = openapiFor(yaml).then((openapi) =>
      proofRun(yaml, { ...(webhookAnswers ? { webhookAnswers } : {}), ...(openapi ? { openapi } : {}) }),
    );
    faithfulRuns.set(key, run);
  }
  return run;
}

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

  it("proves every fault, so that each fault's set of check ids is run", () => {
    const proved = new Set([...PROOFS, ...SCALING_PROOFS].map((p) => p.fault.split('=')[0]));
    for (const name of FAULT_NAMES) expect(proved.has(name), `no proof row for ${name}`).toBe(true);
  });

  it("lists first in each fault's set the ids its proofs show firing", () => {
    for (const f of FAULT_LIST) {
      const proofs = [...PROOFS, ...SCALING_PROOFS].filter((p) => faultOf(p) === f);
      const proved = new Set(proofs.flatMap((p) => p.ids));
      expect([...f.mayTrip.slice(0, proved.size)].sort(), f.name).toEqual([...proved].sort());
    }
  });
});

describe('each fault trips exactly its set: the ids it proves, nothing outside its set, and nothing when faithful', () => {
  it.each(
    PROOFS.map((p) => [`${p.fault} on ${nameOf(p.scenario)} → ${p.ids.join(', ') || 'nothing'}`, p] as const),
  )('%s', async (_name, p) => {
    const openapi = await openapiFor(p.scenario);
    const result = await proofRun(p.scenario, {
      faults: [p.fault],
      ...(p.webhookAnswers ? { webhookAnswers: p.webhookAnswers } : {}),
      ...(openapi ? { openapi } : {}),
    });
    const base = await faithful(p.scenario, p.webhookAnswers);
    const fault = faultOf(p);
    expect(
      exactProofProblems({
        fault: fault.name,
        mayTrip: fault.mayTrip,
        proves: p.ids,
        fired: result.fired,
        faithful: base.fired,
      }),
    ).toEqual([]);
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
      const example = result.violations.find((g) => g.id === id)?.examples[0];
      expect(example?.evidence.request ?? example?.evidence.timeline, `${id} has no evidence`).toBeDefined();
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
  });
});

describe('the exact-proof predicate rejects a fault broader than its set', () => {
  /*
   * A test-only fault that breaks two rules: the composition of lose-jobs' and ttl-ignored's
   * overrides (the emulator composes the two switched on), declaring lose-jobs' set only.
   */
  const overBroad = {
    name: 'lose-jobs+ttl-ignored',
    mayTrip: loseJobs.mayTrip,
    switches: ['lose-jobs', 'ttl-ignored'],
  };

  it('fails its proof, naming the id outside its set; its honest union would pass', async () => {
    const result = await proofRun(CLOCKED, { faults: overBroad.switches });
    const run = {
      fault: overBroad.name,
      mayTrip: overBroad.mayTrip,
      proves: ['lifecycle.lost'],
      fired: result.fired,
      faithful: (await faithful(CLOCKED)).fired,
    };
    expect(exactProofProblems(run)).toEqual([
      `lifecycle.ttl-ignored fired ${String(result.fired.get('lifecycle.ttl-ignored'))}×, outside lose-jobs+ttl-ignored's set`,
    ]);
    expect(exactProofProblems({ ...run, mayTrip: [...loseJobs.mayTrip, ...ttlIgnored.mayTrip] })).toEqual([]);
  });

  it('fails a proof whose id did not fire, or that the faithful emulator trips', () => {
    const run = {
      fault: 'f',
      mayTrip: ['lifecycle.lost'],
      proves: ['lifecycle.lost'],
      fired: new Map(),
      faithful: new Map(),
    };
    expect(exactProofProblems(run)).toEqual(['lifecycle.lost did not fire']);
    expect(
      exactProofProblems({
        ...run,
        fired: new Map([['lifecycle.lost', 1]]),
        faithful: new Map([['server.error', 2]]),
      }),
    ).toEqual(['server.error fired 2× on the faithful emulator']);
    expect(exactProofProblems({ ...run, mayTrip: [], fired: new Map([['lifecycle.lost', 1]]) })).toEqual([
      "lifecycle.lost is proved but not in f's set",
      "lifecycle.lost fired 1×, outside f's set",
    ]);
  });
});

describe("the faithful emulator gives no violations on the proofs' scenarios", () => {
  const scenarios = [
    ...new Map(PROOFS.map((p) => [`${p.scenario}\n${JSON.stringify(p.webhookAnswers ?? null)}`, p])).values(),
  ];
  it.each(
    scenarios.map(
      (p) => [`${nameOf(p.scenario)}${p.webhookAnswers ? ' (webhooks answered 500)' : ''}`, p] as const,
    ),
  )('%s', async (_name, p) => {
    const result = await faithful(p.scenario, p.webhookAnswers);
    expect(result.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
    expect(result.records.filter((r) => r.type === 'exchange').length).toBeGreaterThan(0);
  });

  // The two rate scenarios are the next test's, with what they must show besides silence.
  it('at the limits of the table: /requests refused from its 11th call in 10 s, /openai/* never below 400 at once, and no violation', async () => {
    const requests = await faithful(REQUESTS_RATE);
    const answered = requests.records.flatMap((r) =>
      r.type === 'exchange' && r.op === 'requests' ? [r.status] : [],
    );
    expect(answered.filter((s) => s === 200)).toHaveLength(10);
    expect(answered.filter((s) => s === 429)).toHaveLength(4);
    expect(requests.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
    const openai = await faithful(OPENAI_RATE);
    const statuses = openai.records.flatMap((r) =>
      r.type === 'exchange' && r.op === 'openai' ? [r.status] : [],
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);
    expect(openai.violations.map((g) => `${g.id}: ${g.examples[0]?.message ?? ''}`)).toEqual([]);
  }, 60_000);

  it('webhooks answered 500: three attempts 10 s apart are not a violation', async () => {
    const result = await faithful(WEBHOOKS, FAILING_HOOK);
    expect(result.violations.map((g) => g.id)).toEqual([]);
    expect(result.records.filter((r) => r.type === 'webhook')).toHaveLength(3);
  });

  it('offline checking of the saved records gives the same violations as live', async () => {
    const result = await proofRun(CLOCKED, { faults: ['lose-jobs'] });
    const [run, ...rest] = JSON.parse(JSON.stringify(result.records)) as typeof result.records;
    if (run?.type !== 'run') throw new Error('first record is not the run record');
    const offline = new FoldedChecker(run);
    for (const r of rest) offline.add(r);
    const again = offline.finish();
    expect(again.violations).toEqual(result.violations);
    expect(again.total).toBeGreaterThan(0);
  });
});
