import { Agent, request } from 'undici';

/*
 * A worker written for the tests that follows the worker protocol as the vendor's worker library
 * speaks it (reference/worker-protocol.md): URLs from RUNPOD_WEBHOOK_* with `$ID` and
 * `$RUNPOD_POD_ID` replaced and `&k=v` appended, the bare key, take long-polls (a batch take when
 * more than one slot is free), the stop channel, results and progress as raw JSON labelled
 * form-urlencoded, one stream post per chunk, heartbeats listing the running job ids.
 */

export interface HandlerContext {
  /** A progress update: `{"status":"IN_PROGRESS","output":x}`, not final. */
  progress(output: unknown): Promise<void>;
  /** One generator chunk: a job-stream post. */
  stream(output: unknown): Promise<void>;
  /** Aborted when the job arrives on the stop channel. */
  signal: AbortSignal;
}

/** Returns the output; a throw becomes `{"error": …}`; a returned `{error}` is posted as is. */
export type Handler = (input: Record<string, unknown>, ctx: HandlerContext) => Promise<unknown>;

export interface WorkerTrace {
  takes: number;
  batchTakes: { batchSize: number; got: number }[];
  stopped: string[];
  posts: { kind: 'done' | 'stream' | 'progress'; jobId: string; status: number }[];
  pings: number;
}

export class ProtocolWorker {
  readonly trace: WorkerTrace = { takes: 0, batchTakes: [], stopped: [], posts: [], pings: 0 };
  private readonly running = new Map<string, AbortController>();
  private readonly polls = new AbortController();
  private readonly agent = new Agent({ connections: 16, keepAliveTimeout: 2000 });
  private readonly take: string;
  private readonly stopUrl: string;
  private readonly batch: string;
  private readonly done: string;
  private readonly streamUrl: string;
  private readonly ping: string;
  private readonly key: string;
  private readonly pingMs: number;
  private taking = true;
  private loops: Promise<void>[] = [];

  constructor(
    env: Record<string, string>,
    readonly id: string,
    private readonly handler: Handler,
    private readonly concurrency = 1,
  ) {
    const need = (k: string): string => {
      const v = env[k];
      if (v === undefined) throw new Error(`${k} is not set`);
      return v;
    };
    this.take = need('RUNPOD_WEBHOOK_GET_JOB').replace('$ID', id);
    this.stopUrl = this.take.replace('/job-take/', '/job-stop/');
    this.batch = this.take.replace('/job-take/', '/job-take-batch/');
    this.done = need('RUNPOD_WEBHOOK_POST_OUTPUT').replace('$RUNPOD_POD_ID', id);
    this.streamUrl = need('RUNPOD_WEBHOOK_POST_STREAM').replace('$RUNPOD_POD_ID', id);
    this.ping = need('RUNPOD_WEBHOOK_PING').replace('$RUNPOD_POD_ID', id);
    this.key = need('RUNPOD_AI_API_KEY');
    this.pingMs = Math.floor(Number(need('RUNPOD_PING_INTERVAL')) / 1000) * 1000;
  }

  start(): this {
    this.loops = [this.takeLoop(), this.stopLoop(), this.pingLoop()];
    return this;
  }

  /** SIGTERM's behaviour: no new takes, in-flight jobs finish and post, then the polls end. */
  async stop(): Promise<void> {
    this.taking = false;
    // Real time: waits for handlers whose posts cross real sockets.
    while (this.running.size > 0) await sleep(10);
    this.polls.abort();
    await Promise.allSettled(this.loops);
    await this.agent.close();
  }

  private async call(
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
  ): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { authorization: this.key, 'content-type': 'application/json' };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers.charset = 'utf-8';
    }
    const res = await request(url, {
      method,
      headers,
      body: payload,
      dispatcher: this.agent,
      signal: this.polls.signal,
      headersTimeout: 90_000,
      bodyTimeout: 90_000,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  private async takeLoop(): Promise<void> {
    while (this.taking && !this.polls.signal.aborted) {
      const free = this.concurrency - this.running.size;
      // Real time: waits between real socket exchanges with the emulator, as a worker process does.
      if (free <= 0) {
        await sleep(20);
        continue;
      }
      const inProgress = this.running.size > 0 ? 1 : 0;
      const url =
        free > 1
          ? `${this.batch}&batch_size=${String(free)}&job_in_progress=${String(inProgress)}`
          : `${this.take}&job_in_progress=${String(inProgress)}`;
      let r: { status: number; text: string };
      try {
        r = await this.call('GET', url);
      } catch {
        // Real time: retries after a failed real socket exchange with the emulator.
        await sleep(50);
        continue;
      }
      this.trace.takes++;
      // Real time: backs off as a real worker does against a real server.
      if (r.status === 429) await sleep(5000);
      if (r.status !== 200) continue;
      const got = JSON.parse(r.text) as unknown;
      const jobs = Array.isArray(got) ? got : [got];
      if (free > 1) this.trace.batchTakes.push({ batchSize: free, got: jobs.length });
      for (const job of jobs) this.begin(job);
    }
  }

  private begin(job: unknown): void {
    if (
      typeof job !== 'object' ||
      job === null ||
      !('id' in job) ||
      !('input' in job) ||
      typeof job.id !== 'string'
    )
      return;
    const id = job.id;
    const input = job.input as Record<string, unknown>;
    const abort = new AbortController();
    this.running.set(id, abort);
    void this.runJob(id, input, abort.signal).finally(() => this.running.delete(id));
  }

  private async runJob(id: string, input: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    const done = this.done.replace('$ID', id);
    let streamed = false;
    const post = async (kind: 'done' | 'stream' | 'progress', url: string, body: unknown): Promise<void> => {
      try {
        const r = await this.call('POST', url, body);
        this.trace.posts.push({ kind, jobId: id, status: r.status });
      } catch {
        this.trace.posts.push({ kind, jobId: id, status: 0 });
      }
    };
    const ctx: HandlerContext = {
      signal,
      progress: (output) => post('progress', `${done}&isStream=false`, { status: 'IN_PROGRESS', output }),
      stream: (output) => {
        streamed = true;
        return post('stream', `${this.streamUrl.replace('$ID', id)}&isStream=false`, { output });
      },
    };
    let body: unknown;
    try {
      const out = await this.handler(input, ctx);
      body =
        typeof out === 'object' && out !== null && 'error' in out ? { error: out.error } : { output: out };
    } catch (err) {
      if (signal.aborted) return;
      body = {
        error: JSON.stringify({
          error_type: 'Error',
          error_message: (err as Error).message,
          worker_id: this.id,
        }),
      };
    }
    // A stopped job posts nothing (the worker library cancels its task).
    if (signal.aborted) return;
    await post('done', `${done}&isStream=${String(streamed)}`, body);
  }

  private async stopLoop(): Promise<void> {
    while (!this.polls.signal.aborted) {
      let r: { status: number; text: string };
      try {
        r = await this.call('GET', this.stopUrl);
      } catch {
        // Real time: retries after a failed real socket exchange with the emulator.
        await sleep(100);
        continue;
      }
      // Real time: polls the stop channel over a real socket.
      if (r.status !== 200) {
        await sleep(r.status === 204 ? 0 : 1000);
        continue;
      }
      const ids = (JSON.parse(r.text) as { jobsToStop?: unknown }).jobsToStop;
      if (!Array.isArray(ids)) continue;
      for (const id of ids) {
        if (typeof id !== 'string') continue;
        this.trace.stopped.push(id);
        this.running.get(id)?.abort();
      }
    }
  }

  private async pingLoop(): Promise<void> {
    while (!this.polls.signal.aborted) {
      const ids = [...this.running.keys()].join('%2C');
      try {
        await this.call('GET', `${this.ping}${ids === '' ? '' : `&job_id=${ids}`}&runpod_version=test`);
        this.trace.pings++;
      } catch {
        // the answer is ignored, and so is its absence
      }
      // Real time: heartbeats to a real server at its own pace.
      await sleep(this.pingMs, this.polls.signal).catch(() => undefined);
    }
  }
}

// Real time: the worker talks to the emulator over real sockets, as a worker process would.
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}
