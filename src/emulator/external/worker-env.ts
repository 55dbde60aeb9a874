/**
 * The environment a real worker needs to take jobs from an endpoint (reference/worker-protocol.md
 * §1). `$ID` and `$RUNPOD_POD_ID` stay literal: the worker library replaces them. Every URL ends in
 * `?` because the worker appends `&k=v` as plain text.
 */
export function workerEnvironment(
  endpointUrl: string,
  apiKey: string,
  pingIntervalMs: number,
): Record<string, string> {
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${endpointUrl}/job-take/$ID?`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${endpointUrl}/job-done/$RUNPOD_POD_ID/$ID?`,
    RUNPOD_WEBHOOK_POST_STREAM: `${endpointUrl}/job-stream/$RUNPOD_POD_ID/$ID?`,
    RUNPOD_WEBHOOK_PING: `${endpointUrl}/ping/$RUNPOD_POD_ID?`,
    RUNPOD_AI_API_KEY: apiKey,
    RUNPOD_PING_INTERVAL: String(pingIntervalMs),
    RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
    RUNPOD_SKIP_GPU_CHECK: 'true',
  };
}

/** The environment as one shell `export` statement, single-quoted so `$ID` is not expanded. */
export function exportBlock(env: Record<string, string>, podIdHint: string): string {
  const lines = Object.entries({ ...env, RUNPOD_POD_ID: podIdHint }).map(
    ([k, v]) => `  ${k}='${v.replace(/'/g, `'\\''`)}'`,
  );
  return `export \\\n${lines.join(' \\\n')}`;
}
