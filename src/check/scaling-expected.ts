import type { ExchangeRecord, RunRecord } from '../core/record.js';
import type { ScalingExpectation } from '../core/scaling-expectation.js';

type Numbers = Record<string, unknown>;

const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The endpoint id of a queue base URL `…/v2/<endpointId>`. */
function endpointIdOf(target: string): string | undefined {
  return /\/v2\/([^/?#]+)\/?$/.exec(target)?.[1];
}

/**
 * What the run expects of the endpoint's scaling: the run record's (the scenario's `scaling:`, over
 * the embedded emulator's own settings), unless the run itself created the endpoint it loads with
 * POST /v1/endpoints: then the values that request sent (the answer's where it sent none).
 */
export class ScalingExpected {
  private created: ScalingExpectation | undefined;
  private readonly endpointId: string | undefined;

  constructor(private readonly run: RunRecord) {
    this.endpointId = endpointIdOf(run.target);
  }

  add(r: ExchangeRecord): void {
    if (r.op !== 'CreateEndpoint' || r.status !== 200 || this.endpointId === undefined) return;
    const answer = (r.body ?? {}) as Numbers;
    if (answer.id !== this.endpointId) return;
    const sent = (r.reqBody ?? {}) as Numbers;
    const pick = (key: string): number | undefined => int(sent[key]) ?? int(answer[key]);
    const min = pick('workersMin');
    const max = pick('workersMax');
    const idle = pick('idleTimeout');
    this.created = {
      ...this.run.scaling,
      ...(min === undefined ? {} : { workersMin: min }),
      ...(max === undefined ? {} : { workersMax: max }),
      // The REST v1 idleTimeout is seconds.
      ...(idle === undefined ? {} : { idleTimeoutMs: idle * 1000 }),
    };
  }

  /** Where the expectation came from, for the reasons a rule was not judged. */
  get source(): string {
    if (this.created) return 'the POST /v1/endpoints that created the endpoint';
    return this.run.scaling?.source === 'emulator'
      ? "the embedded emulator's settings"
      : "the scenario's scaling: block";
  }

  get value(): ScalingExpectation {
    return this.created ?? this.run.scaling ?? {};
  }
}
