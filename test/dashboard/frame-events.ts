import { request } from 'node:http';
import type { DashboardFrame } from '../../src/dashboard/index.js';

/** A server-sent event stream read as frames, as a page would get them. */
export class EventReader {
  readonly frames: DashboardFrame[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];
  private readonly req;

  constructor(url: string) {
    this.req = request(`${url}events`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.buffer += chunk;
        let end: number;
        while ((end = this.buffer.indexOf('\n\n')) >= 0) {
          const event = this.buffer.slice(0, end);
          this.buffer = this.buffer.slice(end + 2);
          const data = event.split('\n').find((l) => l.startsWith('data: '));
          if (data) this.frames.push(JSON.parse(data.slice(6)) as DashboardFrame);
        }
        for (const w of this.waiters.splice(0)) w();
      });
    });
    this.req.on('error', () => undefined);
    this.req.end();
  }

  async count(n: number): Promise<DashboardFrame[]> {
    while (this.frames.length < n) await new Promise<void>((r) => this.waiters.push(r));
    return this.frames;
  }

  close(): void {
    this.req.destroy();
  }
}
