/**
 * The URL a `webhook: true` job is given: the run's receiver plus a path of the job's own. A local
 * server's delivery names no job (its body is the handler's `{output}`), so its URL is all that
 * says whose it is; the contract's body names the job anyway, and then the path is unused.
 */
let submitted = 0;

/** `<receiver>/<shard>.<n>`: unique within a process (each shard thread counts its own, so its tag leads). */
export function jobWebhookUrl(
  receiverUrl: string | undefined,
  shard: string | undefined,
): string | undefined {
  if (receiverUrl === undefined) return undefined;
  submitted += 1;
  const tag = shard === undefined ? 'j' : `s${shard.replace('/', '-')}`;
  return `${receiverUrl}/${tag}.${String(submitted)}`;
}
