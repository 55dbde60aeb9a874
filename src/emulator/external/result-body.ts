/** What a job-done body asks for (reference/worker-protocol.md "D. Result"). */
export type ResultVerdict =
  | { kind: 'progress'; output: unknown }
  | { kind: 'output'; output: unknown; stopPod: boolean }
  | { kind: 'error'; error: string; stopPod: boolean }
  | { kind: 'invalid'; message: string };

/**
 * `{"status":"IN_PROGRESS","output":x}` is a progress update; `{"error":…}` fails the job (a
 * non-string error is kept as its JSON text, since the job's `error` is a string); `{"output":…}`
 * completes it. Anything else is refused, so a malformed post changes no job.
 */
export function judgeResult(body: unknown): ResultVerdict {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      kind: 'invalid',
      message:
        'a result is a JSON object: {"output": …}, {"error": "…"} or {"status": "IN_PROGRESS", "output": …}',
    };
  }
  const fields = body as Record<string, unknown>;
  const stopPod = fields.stopPod === true;
  if (fields.status !== undefined) {
    if (fields.status !== 'IN_PROGRESS')
      return {
        kind: 'invalid',
        message: `status in a result may only be "IN_PROGRESS" (a progress update), got ${JSON.stringify(fields.status)}`,
      };
    if (!('output' in fields))
      return { kind: 'invalid', message: 'a progress update {"status":"IN_PROGRESS"} needs an "output"' };
    return { kind: 'progress', output: fields.output };
  }
  const error = fields.error;
  if (error !== undefined && error !== null && error !== '') {
    return { kind: 'error', error: typeof error === 'string' ? error : JSON.stringify(error), stopPod };
  }
  if ('output' in fields) return { kind: 'output', output: fields.output, stopPod };
  return { kind: 'invalid', message: 'a result needs "output" or "error"' };
}
