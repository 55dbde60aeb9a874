import type { ClientResult } from '../client/client-options.js';
import { PREFLIGHT_FLOW } from '../core/record.js';
import type { RunContext } from './run-context.js';

/** One thing the preflight found out, for the report's first section. */
export interface PreflightFinding {
  /** `key`, `endpoint`, `health`, `status`. */
  check: string;
  ok: boolean;
  detail: string;
}

export interface PreflightResult {
  findings: PreflightFinding[];
  /** Set when the load must not start: the key was refused, or nothing answered. */
  fatal?: { kind: 'key-refused' | 'unreachable'; message: string };
}

/** A job id no service can have issued: its /status must be 404 (SPEC "GET /status"). */
const MADE_UP_ID = 'jobstorm-preflight-no-such-job';

/**
 * A few requests before the load (recorded and checked like any other): is the key accepted, does
 * the endpoint exist, which operations are served. A refused key or a silent target ends the run
 * here, after two requests instead of after the whole load.
 */
export async function preflight(ctx: RunContext, target: string): Promise<PreflightResult> {
  const call = { flow: PREFLIGHT_FLOW, signal: ctx.abort };
  const findings: PreflightFinding[] = [];
  const health = await ctx.client.health({ ...call, step: 'preflight:health' });
  if (health.status === undefined) {
    return {
      findings,
      fatal: {
        kind: 'unreachable',
        message: `${target} did not answer GET /health (${health.error?.kind ?? 'no answer'}${health.error?.code ? ` ${health.error.code}` : ''})`,
      },
    };
  }
  const status = await ctx.client.status(MADE_UP_ID, {}, { ...call, step: 'preflight:status' });
  const refused = [health, status].find((r) => r.status === 401 || r.status === 403);
  if (refused) {
    const how = ctx.keyless ? 'a request without a key was' : 'the key was';
    return {
      findings: [
        {
          check: 'key',
          ok: false,
          detail: `${how} refused by ${target} (${String(refused.status)} on ${refused.record.method} ${refused.record.path})`,
        },
      ],
      fatal: {
        kind: 'key-refused',
        message: `${how} refused by ${target} (${String(refused.status)} on ${refused.record.method} ${refused.record.path}); nothing else was sent`,
      },
    };
  }
  findings.push({
    check: 'key',
    ok: true,
    detail: ctx.keyless ? 'requests without a key are answered' : 'the key is accepted',
  });
  findings.push(healthFinding(health));
  findings.push(statusFinding(status));
  const exists = ok(health) || status.status === 404 || ok(status);
  findings.push({
    check: 'endpoint',
    ok: ok(health),
    detail: ok(health)
      ? 'the endpoint exists (/health answered)'
      : exists
        ? 'could not confirm the endpoint exists: /health is not served; a wrong endpoint id would look the same'
        : 'the endpoint may not exist',
  });
  return { findings };
}

function ok(r: ClientResult): boolean {
  return r.status !== undefined && r.status >= 200 && r.status < 300;
}

function healthFinding(r: ClientResult): PreflightFinding {
  if (ok(r)) return { check: 'health', ok: true, detail: `GET /health answered ${String(r.status)}` };
  if (r.status === 405)
    return {
      check: 'health',
      ok: false,
      detail: `GET /health answered 405${r.record.allow ? ` (Allow: ${r.record.allow})` : ''}: /health is not served by GET`,
    };
  return {
    check: 'health',
    ok: false,
    detail: `GET /health answered ${String(r.status)}: /health may not be served (or the endpoint id is wrong)`,
  };
}

function statusFinding(r: ClientResult): PreflightFinding {
  if (r.status === 404)
    return {
      check: 'status',
      ok: true,
      detail: 'GET /status of a job that never existed answered 404, as the contract says',
    };
  if (r.status === 405)
    return {
      check: 'status',
      ok: false,
      detail: `GET /status answered 405${r.record.allow ? ` (Allow: ${r.record.allow})` : ''}: /status is not served by GET`,
    };
  return {
    check: 'status',
    ok: false,
    detail: `GET /status of a job that never existed answered ${String(r.status)}; the contract says 404`,
  };
}
