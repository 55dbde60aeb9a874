import type { ExchangeRecord, JobstormRecord } from '../../core/record.js';
import type { MissingRoute } from '../../core/route-watch.js';
import type { Check, CheckContext } from '../check.js';

/** The finding of a missing route or method, under its own id. */
function report(m: MissingRoute, ctx: CheckContext): void {
  if (m.kind === 'method') {
    const instead = ctx.routes.methodFor(m.op);
    const then =
      instead === undefined
        ? `jobstorm stops sending ${m.op} for the rest of the run`
        : `jobstorm sends ${m.op} with ${instead} from then on (records marked adaptedFrom ${m.record.method}), and goes on judging what it answers`;
    ctx.emit(ctx.settle('request.method'), {
      record: m.record,
      message: `this target does not take ${m.record.method} for ${m.op}, the contract's method: it ${m.reason}; ${then}`,
    });
  } else {
    ctx.emit(ctx.settle('route.missing'), {
      record: m.record,
      message: `this target does not serve ${m.op}: it ${m.reason}; jobstorm stops sending ${m.op} for the rest of the run`,
    });
  }
}

function watch(r: ExchangeRecord, ctx: CheckContext): void {
  if (r.status === undefined || r.op === 'StartPod' || r.op === 'CreateEndpoint') return;
  const probe = r.req?.probe;
  // Every answered request could have shown either; the route watch decides across records, so
  // the verdict comes with the record that settles it (see LATE_CHECK_IDS).
  if (probe === undefined || probe.startsWith('request.method')) {
    ctx.judge('route.missing', false);
    ctx.judge('request.method', false);
  }
  for (const m of ctx.routes.add(r)) report(m, ctx);
}

/**
 * `route.missing` and `request.method`: the checker runs this before every other check, so that
 * they can leave a missing route's answers to it (the route watch is shared with the runner).
 */
export const routeCheck = {
  name: 'route',
  ids: ['route.missing', 'request.method'],
  add(r: JobstormRecord, ctx: CheckContext) {
    if (r.type === 'exchange') watch(r, ctx);
  },
} satisfies Check;
