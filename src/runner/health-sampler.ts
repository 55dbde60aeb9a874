import type { RunContext } from './run-context.js';

/**
 * Samples /health about once a second as ordinary records, so the checks' dynamic rate limit and
 * the reports' worker counts come from the same data (DESIGN "Records").
 */
export function startHealthSampler(ctx: RunContext, everyMs = 1000): () => Promise<void> {
  let stopped = false;
  let pending: Promise<unknown> = Promise.resolve();
  let cancel: () => void = () => undefined;
  const tick = (): void => {
    if (stopped) return;
    // A target without /health is reported once (route.missing); sampling it on would only add 404s.
    if (ctx.routes.isMissing('health')) return;
    pending = ctx.client.health({ flow: '_health', step: 'sample', signal: ctx.abort }).finally(() => {
      if (!stopped) cancel = ctx.clock.schedule(everyMs, tick);
    });
  };
  tick();
  return async () => {
    stopped = true;
    cancel();
    await pending;
  };
}
