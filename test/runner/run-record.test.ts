import { describe, expect, it } from 'vitest';
import { runRecord } from '../../src/runner/run-record.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';

/* The run record says how the run sent its key, so a finding's curl sends the same (issue 47). */

const scenario = (auth: string) =>
  parseScenario(
    `name: a\ntarget: { auth: ${auth} }\nphases:\n  - { duration: 1s, rate: 1 }\nflows:\n  - name: f\n    steps:\n      - health: {}\n`,
    'a.yaml',
  );
const target = { baseUrl: 'http://127.0.0.1:9/v2/ep', apiKey: '', ownsEndpoint: false };

describe('runRecord', () => {
  it('names the key form when it is not Bearer, and says nothing of the default', () => {
    const of = (auth: string) =>
      runRecord({ runId: 'r', scenario: scenario(auth), target }, 0, undefined).auth;
    expect(of('none')).toBe('none');
    expect(of('bare')).toBe('bare');
    expect(of('bearer')).toBeUndefined();
  });
});
