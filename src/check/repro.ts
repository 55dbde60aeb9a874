import type { ExchangeRecord, RunRecord } from '../core/record.js';

/** Quotes a value for a POSIX shell. */
function sh(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A curl command that replays the exchange. The key is always `$JOBSTORM_API_KEY`, never the key
 * itself (records never hold it either); the target is spelled out, since it holds no credentials.
 * A request sends its key as the run did (`--auth none`: no header at all), unless it was a probe
 * that sent it another way on purpose.
 */
export function curlRepro(r: ExchangeRecord, run: RunRecord): string {
  const base = run.target.replace(/\/+$/, '');
  // Management paths are relative to the management base, `{origin}/v1` (the CLI's default).
  const prefix = r.op === 'StartPod' || r.op === 'CreateEndpoint' ? `${new URL(base).origin}/v1` : base;
  const url = `${prefix}${r.path}`;
  const parts = ['curl', '-sS', '-X', r.method, sh(url)];
  const auth = r.req?.auth ?? run.auth;
  if (auth === 'bare') parts.push('-H', '"Authorization: $JOBSTORM_API_KEY"');
  else if (auth === 'wrong') parts.push('-H', sh('Authorization: Bearer wrong-key'));
  else if (auth !== 'missing' && auth !== 'none')
    parts.push('-H', '"Authorization: Bearer $JOBSTORM_API_KEY"');
  if (r.method === 'POST' && (r.op === 'run' || r.op === 'runsync' || r.op === 'CreateEndpoint')) {
    parts.push('-H', sh('Content-Type: application/json'));
    if (r.reqBody !== undefined) parts.push('-d', sh(JSON.stringify(r.reqBody)));
    else parts.push('-d', sh(`<the ${String(r.reqBytes)}-byte body the flow sent>`));
  }
  return parts.join(' ');
}
