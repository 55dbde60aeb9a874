import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/core/manual-clock.js';
import { EXPORTERS } from '../../src/export/exporters.js';
import { LiveExports } from '../../src/export/live-exports.js';
import type { MetricSender } from '../../src/export/metric-sender.js';
import { OtlpSender } from '../../src/export/otlp-sender.js';
import { ClockDriver } from '../helpers/clock-driver.js';
import { MANUAL_EPOCH_MS } from '../helpers/manual-target.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';

/*
 * Live exports on a manual clock (issue 46), moved by the ClockDriver as a run's are: each send is
 * under way as a whole, not only while its request is on the wire, so no flush finds the one before
 * it still in flight. capacity-export failed so on loaded machines ('the previous export is still
 * in flight (slow backend)'): the driver moves the clock once the loop looks idle, and the parts of
 * a send with no request open (the sender's loading, encoding, bookkeeping) look idle to it.
 */

let receiver: OtlpReceiver | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await receiver?.close();
  receiver = undefined;
});

/** Resolves after `n` turns of the event loop, with nothing on the wire meanwhile. */
const turns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * The OpenTelemetry sender, with event-loop turns before its request and after its answer in
 * which no request is open: a library's own set-up, encoding and bookkeeping, as a loaded machine
 * spreads them out. Ten turns: more than the three quiet ones after which the driver takes the
 * loop for idle.
 */
function turnTaking(inner: MetricSender, before: number, after: number): MetricSender {
  return {
    kind: inner.kind,
    async send(snapshot, timeoutMs) {
      await turns(before);
      await inner.send(snapshot, timeoutMs);
      await turns(after);
    },
    close: () => inner.close(),
  };
}

describe('LiveExports on a manual clock moved by the ClockDriver', () => {
  it.each([
    ['before its request', 10, 0],
    ['after its answer', 0, 10],
  ])(
    'a send whose work %s takes turns holds the clock: every flush is sent, none dropped',
    async (_when, before, after) => {
      receiver = await startOtlpReceiver();
      const r = receiver;
      vi.spyOn(EXPORTERS.otlp, 'create').mockImplementation((target, timeoutMs) =>
        Promise.resolve(turnTaking(new OtlpSender(target, timeoutMs), before, after)),
      );
      const clock = new ManualClock(0, MANUAL_EPOCH_MS);
      const warnings: string[] = [];
      const live = new LiveExports({
        targets: [{ kind: 'otlp', url: r.url, headers: {} }],
        intervalMs: 100,
        runId: 'r',
        scenario: 's',
        onWarning: (m) => warnings.push(m),
        clock,
      });
      live.start();
      // Flushes at 100 … 900 ms, then stop's own at 950.
      const stats = await new ClockDriver(clock).run(clock.sleep(950).then(() => live.stop()));
      expect(warnings).toEqual([]);
      expect(stats).toEqual([{ kind: 'otlp', url: r.url, sent: 10, dropped: 0 }]);
      expect(r.received).toHaveLength(10);
      expect(clock.now()).toBe(950);
    },
  );
});
