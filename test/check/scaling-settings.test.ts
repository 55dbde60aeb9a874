import { describe, expect, it } from 'vitest';
import type { ExchangeRecord } from '../../src/core/record.js';
import type { ScalingExpectation } from '../../src/core/scaling-expectation.js';
import { ex } from './records.js';
import { health, scalingOutcome as check } from './scaling-outcome.js';

/*
 * Which settings the scaling rules go by (issue 39): the run record's, unless the run created the
 * endpoint it loads with POST /v1/endpoints; then each value that request sent, else the answer's,
 * else the run record's. The REST v1 idleTimeout is in seconds.
 */

const RUN: ScalingExpectation = { workersMin: 1, workersMax: 10, idleTimeoutMs: 60_000, source: 'scenario' };

function created(
  sent: Record<string, unknown>,
  answer: Record<string, unknown>,
  status = 200,
): ExchangeRecord {
  return ex(
    'CreateEndpoint',
    500,
    status,
    { id: 'ep', ...answer },
    { reqBody: { templateId: 't', ...sent } },
  );
}

/** Three idle workers from 1 s on, read again at `last`: above-max and no-scale-down both judge them. */
const idleThree = (last: number) => [health(1000, { idle: 3 }), health(last, { idle: 3 })];

describe('the settings the scaling rules go by', () => {
  it('each value the create request sent, before the answer', () => {
    const out = check([created({ workersMax: 2 }, { workersMax: 5 }), ...idleThree(2000)], RUN);
    expect(out.found).toEqual({ 'scaling.above-max': 2 });
    expect(out.messages['scaling.above-max']).toMatch(/above workersMax 2$/);
  });

  it("the answer's value where the request sent none, or one that is no finite number", () => {
    for (const sent of [{}, { workersMax: Infinity }, { workersMax: 'two' }]) {
      const out = check([created(sent, { workersMax: 2 }), ...idleThree(2000)], RUN);
      expect(out.messages['scaling.above-max'], JSON.stringify(sent)).toMatch(/above workersMax 2$/);
    }
  });

  it("the run record's value where the create gave none", () => {
    const out = check([created({ idleTimeout: 5 }, {}), health(1000, { idle: 11 })], RUN);
    expect(out.messages['scaling.above-max']).toMatch(/above workersMax 10$/);
    expect(out.notes).not.toHaveProperty('scaling.no-scale-down');
    const kept = check([created({ workersMax: 20 }, {}), ...idleThree(66_006)], RUN);
    expect(kept.found).toEqual({ 'scaling.no-scale-down': 1 });
    expect(kept.messages['scaling.no-scale-down']).toMatch(/above workersMin 1 past idleTimeout 60\.0 s$/);
  });

  it('workersMin from the create request', () => {
    expect(check([created({ workersMin: 3 }, {}), ...idleThree(66_006)], RUN).found).toEqual({});
    expect(check([created({ workersMin: 2 }, {}), ...idleThree(66_006)], RUN).found).toEqual({
      'scaling.no-scale-down': 1,
    });
  });

  it('idleTimeout from the create request, in seconds', () => {
    // 5 s plus 5 s of grace, from the end of the first read (1005).
    expect(check([created({ idleTimeout: 5 }, {}), ...idleThree(11_005)], RUN).found).toEqual({});
    const past = check([created({ idleTimeout: 5 }, {}), ...idleThree(11_006)], RUN);
    expect(past.found).toEqual({ 'scaling.no-scale-down': 1 });
    expect(past.messages['scaling.no-scale-down']).toMatch(/past idleTimeout 5\.0 s$/);
  });

  it('only a CreateEndpoint answered 200 for the endpoint the run loads', () => {
    const others: ExchangeRecord[] = [
      created({ workersMax: 2 }, {}, 500),
      ex('StartPod', 500, 200, { id: 'ep', workersMax: 2 }, { reqBody: { workersMax: 2 } }),
      ex('CreateEndpoint', 500, 200, { id: 'other', workersMax: 2 }, { reqBody: { workersMax: 2 } }),
    ];
    for (const r of others) {
      const out = check([r, health(1000, { idle: 3 })], RUN);
      expect(out.found, r.op).toEqual({});
    }
  });

  it('a target that is not a queue base URL names no endpoint the run could have created', () => {
    for (const target of ['http://127.0.0.1:9/v2/ep/run', 'http://127.0.0.1:9/queue']) {
      const noId = ex('CreateEndpoint', 500, 200, { workersMax: 2 }, { reqBody: { workersMax: 2 } });
      const out = check([created({ workersMax: 2 }, {}), noId, health(1000, { idle: 3 })], RUN, { target });
      expect(out.found, target).toEqual({});
    }
  });

  it('says where the settings came from when one is missing', () => {
    const reads = [health(1000)];
    const from = (source: ScalingExpectation['source'], records: ExchangeRecord[] = []) =>
      check([...records, ...reads], { workersMin: 0, source }).notes['scaling.above-max'];
    expect(from('scenario')).toBe(
      "workersMax is not known: the scenario's scaling: block does not give it (state it under scaling:)",
    );
    expect(from('emulator')).toBe(
      "workersMax is not known: the embedded emulator's settings does not give it (state it under scaling:)",
    );
    expect(from('emulator', [created({ idleTimeout: 5 }, {})])).toBe(
      'workersMax is not known: the POST /v1/endpoints that created the endpoint does not give it (state it under scaling:)',
    );
  });
});
