import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CappedMap } from '../core/capped-map.js';
import type { Clock } from '../core/clock.js';
import { RECORD_VERSION, type WebhookRecord } from '../core/record.js';
import { trimBody } from '../core/trim-body.js';

export interface WebhookAnswers {
  /** Status to answer while failing (default 200: never fail). */
  status: number;
  /** How many deliveries of each job get `status` before the receiver answers 200. */
  failAttempts: number;
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 1_048_576;
/**
 * Jobs whose deliveries are counted, the latest first to stay: a job's retries come within 20 s of
 * its first delivery (SPEC: twice, 10 s apart), so this many is 10,000 webhook jobs a second.
 */
const MAX_COUNTED_JOBS = 200_000;

async function readBody(req: IncomingMessage): Promise<{ text: string; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    bytes += b.length;
    if (bytes <= MAX_BODY) chunks.push(b);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes };
}

/**
 * A loopback server that takes the service's webhook deliveries as records. It can answer non-200
 * on purpose, so a scenario can exercise the service's retries (SPEC "Events" 3).
 */
export async function startWebhookReceiver(opts: {
  clock: Clock;
  emit(r: WebhookRecord): void;
  nextSeq(): number;
  answers?: WebhookAnswers;
  host?: string;
  /** How long jobstorm's loop had not run at `now` (core/loop-heartbeat.ts). */
  loopGapAt?: (now: number) => number;
  /**
   * Read a body that names no job as the job's whose URL it came to (marked `adaptedShape`);
   * false in a strict run, where such a delivery is no job's.
   */
  adapt?: boolean;
  /** Jobs whose deliveries are counted at once (default MAX_COUNTED_JOBS; tests make it small). */
  countedJobs?: number;
}): Promise<WebhookReceiver> {
  const answers = opts.answers ?? { status: 200, failAttempts: 0 };
  // Only a receiver that fails on purpose needs the counts: kept for every job, they grow with the run.
  const counting = answers.failAttempts > 0;
  const attempts = new CappedMap<string, number>(opts.countedJobs ?? MAX_COUNTED_JOBS);
  const server: Server = createServer((req, res) => {
    void readBody(req).then(({ text, bytes }) => {
      const at = opts.clock.now();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text.slice(0, 256);
      }
      const id = (body as { id?: unknown } | null)?.id;
      const jobId = typeof id === 'string' ? id : undefined;
      const byUrl = jobId === undefined && opts.adapt !== false;
      // Each job has a URL of its own (steps/webhook-url.ts), so attempts count by it when the body is silent.
      const key = counting ? (jobId ?? (byUrl ? req.url : undefined)) : undefined;
      const n = (key === undefined ? 0 : (attempts.get(key) ?? 0)) + 1;
      if (key !== undefined) attempts.set(key, n);
      const answered = n <= answers.failAttempts ? answers.status : 200;
      const record: WebhookRecord = {
        v: RECORD_VERSION,
        type: 'webhook',
        seq: opts.nextSeq(),
        at,
        path: req.url ?? '/',
        answered,
        bytes,
        body: trimBody(body),
      };
      if (jobId !== undefined) record.jobId = jobId;
      if (byUrl) record.adaptedShape = 'no-id';
      const gap = opts.loopGapAt?.(at) ?? 0;
      if (gap > 0) record.loopGapMs = gap;
      opts.emit(record);
      res
        .writeHead(answered, { 'content-type': 'application/json' })
        .end(answered === 200 ? '{"ok":true}' : '{"error":"failing on purpose"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${String(port)}/webhook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
