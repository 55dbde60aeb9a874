import { describe, expect, it } from 'vitest';
import { curlRepro } from '../../src/check/repro.js';
import { ex, runRecord } from './records.js';

/* The curl command a finding carries: the key never spelled out, the body as it was sent. */

const run = runRecord({ target: 'https://api.example.com/v2/ep//' });

describe('curlRepro', () => {
  it('replays a submit with its JSON body and the key from the environment', () => {
    const r = ex('run', 0, 200, undefined, { path: '/run', reqBody: { input: { s: "it's" } } });
    expect(curlRepro(r, run)).toBe(
      `curl -sS -X POST 'https://api.example.com/v2/ep/run' -H "Authorization: Bearer $JOBSTORM_API_KEY" -H 'Content-Type: application/json' -d '{"input":{"s":"it'\\''s"}}'`,
    );
  });

  it('names the size of a body it does not hold', () => {
    const r = ex('runsync', 0, 200, undefined, { path: '/runsync', reqBytes: 42 });
    expect(curlRepro(r, run)).toBe(
      `curl -sS -X POST 'https://api.example.com/v2/ep/runsync' -H "Authorization: Bearer $JOBSTORM_API_KEY" -H 'Content-Type: application/json' -d '<the 42-byte body the flow sent>'`,
    );
  });

  it('sends no body with a GET, nor with a POST of another operation', () => {
    expect(curlRepro(ex('status', 0, 200, undefined, { path: '/status/j' }), run)).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/status/j' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    );
    expect(curlRepro(ex('cancel', 0, 200, undefined, { path: '/cancel/j', reqBody: {} }), run)).toBe(
      `curl -sS -X POST 'https://api.example.com/v2/ep/cancel/j' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    );
    expect(curlRepro(ex('run', 0, 200, undefined, { method: 'GET', path: '/run', reqBody: {} }), run)).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/run' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    );
  });

  it('sends the key in the form the request did, a wrong key, or none', () => {
    const get = (auth: 'bare' | 'wrong' | 'missing' | 'none' | 'bearer') =>
      curlRepro(ex('health', 0, 200, undefined, { path: '/health', req: { auth } }), run);
    expect(get('bare')).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/health' -H "Authorization: $JOBSTORM_API_KEY"`,
    );
    expect(get('wrong')).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/health' -H 'Authorization: Bearer wrong-key'`,
    );
    expect(get('missing')).toBe(`curl -sS -X GET 'https://api.example.com/v2/ep/health'`);
    expect(get('none')).toBe(`curl -sS -X GET 'https://api.example.com/v2/ep/health'`);
    expect(get('bearer')).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/health' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    );
  });

  it('sends what the run sent: no header at all in a run with --auth none, the bare key with --auth bare (issue 47)', () => {
    const status = ex('status', 0, 200, undefined, { path: '/status/j' });
    expect(curlRepro(status, runRecord({ target: 'https://api.example.com/v2/ep', auth: 'none' }))).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/status/j'`,
    );
    expect(curlRepro(status, runRecord({ target: 'https://api.example.com/v2/ep', auth: 'bare' }))).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/status/j' -H "Authorization: $JOBSTORM_API_KEY"`,
    );
    // A probe that sent a wrong key on purpose still sends it, whatever the run's form.
    const probe = ex('health', 0, 401, undefined, { path: '/health', req: { auth: 'wrong' } });
    expect(curlRepro(probe, runRecord({ target: 'https://api.example.com/v2/ep', auth: 'none' }))).toBe(
      `curl -sS -X GET 'https://api.example.com/v2/ep/health' -H 'Authorization: Bearer wrong-key'`,
    );
  });

  it('sends management calls to the management base of the target origin', () => {
    const r = ex('CreateEndpoint', 0, 200, undefined, { path: '/endpoints', reqBody: { name: 'e' } });
    expect(curlRepro(r, run)).toBe(
      `curl -sS -X POST 'https://api.example.com/v1/endpoints' -H "Authorization: Bearer $JOBSTORM_API_KEY" -H 'Content-Type: application/json' -d '{"name":"e"}'`,
    );
    expect(curlRepro(ex('StartPod', 0, 200, undefined, { path: '/pods/p/start' }), run)).toBe(
      `curl -sS -X POST 'https://api.example.com/v1/pods/p/start' -H "Authorization: Bearer $JOBSTORM_API_KEY"`,
    );
  });
});
