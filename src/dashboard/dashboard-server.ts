import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server serves: the page as it stands, and each frame's JSON for the events. */
export interface PageSource {
  /** The whole page with the latest frame in it. */
  page(): string;
  /** The latest frame as JSON: the first event a new connection gets. */
  frameJson(): string;
}

/** A loopback address: the page carries no authentication, so that is where it lives by default. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The dashboard's HTTP side: `/` the page, `/events` server-sent events, `/frame.json` the latest
 * frame. Bound to loopback, it answers only requests named to loopback (`Host`), so a web page
 * elsewhere cannot read it through a DNS name pointed at 127.0.0.1.
 */
export class DashboardServer {
  private readonly server: Server;
  private readonly clients = new Set<ServerResponse>();
  private port = 0;

  constructor(
    private readonly host: string,
    private readonly source: PageSource,
  ) {
    this.server = createServer((req, res) => this.answer(req, res));
  }

  /** Listens; resolves with the page's URL. */
  async listen(port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${String(this.port)}/`;
  }

  get watching(): number {
    return this.clients.size;
  }

  /** Sends one frame to every connected page. */
  send(frameJson: string): void {
    const event = eventOf(frameJson);
    for (const res of this.clients) res.write(event);
  }

  /** Ends every event stream (after its last event) and stops listening. */
  async close(): Promise<void> {
    for (const res of this.clients) res.end();
    this.clients.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    if (!this.hostAllowed(req.headers.host)) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('jobstorm dashboard: wrong Host\n');
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('GET only\n');
    } else if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : this.source.page());
    } else if (path === '/frame.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(this.source.frameJson());
    } else if (path === '/events') {
      this.subscribe(res);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  }

  private subscribe(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    // A reconnect comes after a second; the first event is the whole state, so nothing is missed.
    res.write('retry: 1000\n\n');
    res.write(eventOf(this.source.frameJson()));
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  private hostAllowed(header: string | undefined): boolean {
    if (!isLoopback(this.host)) return true;
    if (header === undefined) return false;
    const name = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.split(':')[0];
    return name !== undefined && isLoopback(name);
  }
}

function eventOf(json: string): string {
  return `event: frame\ndata: ${json}\n\n`;
}
