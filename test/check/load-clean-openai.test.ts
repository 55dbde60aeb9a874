import { describe, expect, it } from 'vitest';
import { proofRun } from './proof-run.js';

/*
 * Issue 18: no false positives from the /openai/* and /requests checks under load. Streamed and
 * unstreamed chat completions, text completions, model lists and /run jobs share the endpoint's
 * workers; /requests is read well past its 10 per 10 s on purpose, with 429s retried. Every
 * check stays silent. Ten workers × requestsPerWorker 1 never lift /requests above its base 10
 * (the checks know running workers only from /health samples, about one a second).
 */
const CHAT_LOAD = `
name: openai-load
target: { connections: 256, maxInFlight: 2000, retry429: { attempts: 3, base: 200ms, max: 2s } }
emulator: { workersMin: 10, workersMax: 10, requestsPerWorker: 1, coldStart: 0, profile: { duration: { kind: uniform, minMs: 20, maxMs: 150 } } }
arrivals: { process: poisson, seed: 11 }
phases: [{ duration: 6s, rate: 100 }]
flows:
  - name: streamed-chat
    weight: 6
    steps:
      - openai: { stream: true, body: { model: m, messages: [{ role: user, content: "q {{iteration}}" }], max_tokens: "{{random:4:24}}" } }
  - name: chat
    weight: 2
    steps:
      - openai: { body: { model: m, messages: [{ role: user, content: hi }], max_tokens: 8 } }
  - name: text
    weight: 1
    steps:
      - openai: { path: completions, stream: true, body: { model: m, prompt: once, max_tokens: 6 } }
      - openai: { path: models }
  - name: jobs
    weight: 1
    steps:
      - run: { input: { sleep_ms: "{{random:20:300}}" } }
      - poll: { until: final, interval: 100ms, timeout: 20s }
  - name: operator
    weight: 1.5
    steps:
      - requests: {}
`;

describe('the faithful emulator under chat load', () => {
  it('hundreds of streamed completions, /run jobs and provoked /requests 429s give zero violations', async () => {
    const result = await proofRun(CHAT_LOAD);
    const exchanges = result.records.flatMap((r) => (r.type === 'exchange' ? [r] : []));
    const streamed = exchanges.filter((r) => r.op === 'openai' && r.sse?.done === true);
    const tokens = streamed.reduce((n, r) => n + (r.sse?.tokens ?? 0), 0);
    expect(streamed.length).toBeGreaterThan(300);
    expect(tokens).toBeGreaterThan(streamed.length * 4);
    expect(
      exchanges.filter(
        (r) => r.op === 'openai' && r.method === 'POST' && r.sse === undefined && r.status === 200,
      ).length,
    ).toBeGreaterThan(50);
    expect(exchanges.filter((r) => r.op === 'requests' && r.status === 429).length).toBeGreaterThan(0);
    expect(exchanges.filter((r) => r.op === 'run' && r.status === 200).length).toBeGreaterThan(30);
    expect(
      result.violations.map((g) => `${g.id} ×${String(g.count)}: ${g.examples[0]?.message ?? ''}`),
    ).toEqual([]);
  }, 120_000);
});
