import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real Prometheus (Debian's package) on loopback, with the remote-write receiver on. */
export interface PrometheusServer {
  url: string;
  writeUrl: string;
  child: ChildProcess;
  /** Instant query through the HTTP API; the result vector's values by series. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  kill(): Promise<void>;
}

export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

export async function startPrometheus(): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'jobstorm-prometheus-'));
  await writeFile(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 1m\n');
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  const child = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Real time: waits for a real Prometheus process to become ready.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus did not become ready in 30 s: ${stderr}`);
    }
    // Real time: polls a real Prometheus process for readiness.
    await new Promise((r) => setTimeout(r, 100));
  }
  let killed = false;
  return {
    url,
    writeUrl: `${url}/api/v1/write`,
    child,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as QueryAnswer;
      if (body.status !== 'success' || !body.data)
        throw new Error(`query ${expr} failed: ${body.error ?? res.status}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async kill() {
      if (!killed) {
        killed = true;
        child.kill('SIGKILL');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
