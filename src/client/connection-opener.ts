import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import type { Clock } from '../core/clock.js';

/**
 * How long an opened connection waits, unused, for the pool to take it: undici's own default
 * keep-alive for an idle connection, for the same reason (a server or a proxy may close an idle
 * connection, and a request written onto it as it closes fails).
 */
const IDLE_MS = 4000;

/** Where an opened connection leads: the pool's origin, as undici's connector takes it. */
function connectOptions(origin: URL): buildConnector.Options {
  // An IPv6 literal comes bracketed in a URL; the connector wants the bare address, as undici's
  // own client gives it.
  const hostname = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
  return { hostname, host: origin.host, protocol: origin.protocol, port: origin.port };
}

/**
 * The connector of one origin's pool (issue 35). undici opens a pool's connections lazily, as
 * requests come: a run's first requests then waited for their connections to be opened, while the
 * schedule already ran, and at 8,000 requests/s with no warm-up that wait was most of the run's
 * p99. `open` opens connections before time 0, through undici's own connector (same TLS session
 * cache, keep-alive and no-delay settings), and keeps them until the pool asks for a connection:
 * the target sees connections, not requests. An opened connection nobody takes within IDLE_MS is
 * closed.
 *
 * It also tells the owner when, after all, a request waited for a connection jobstorm had never
 * opened before (`onFirstOpen`): that wait is jobstorm's, not the target's, and the generator
 * watch counts it as such. A connection opened again after the target closed one is not reported:
 * that wait is the target's doing.
 */
export class ConnectionOpener {
  /** Opened, not yet taken, each with what closes it (a Map keeps the order they were opened in). */
  private readonly ready = new Map<Socket, () => void>();
  /** Connections ever opened or being opened, up to the pool's size: beyond it, only replacements. */
  private started = 0;

  constructor(
    private readonly inner: buildConnector.connector,
    private readonly size: number,
    private readonly clock: Clock,
    private readonly onFirstOpen?: (startedAt: number, endedAt: number) => void,
  ) {}

  /** Opened and not yet taken by the pool. */
  get waiting(): number {
    return this.ready.size;
  }

  /** The pool's connector: an opened connection when there is one, else a new one opened now. */
  readonly connect: buildConnector.connector = (options, callback) => {
    const socket = this.take();
    if (socket) {
      // undici's client ignores a connector that calls back within its own call (it is resuming
      // then): hand the connection over just after.
      queueMicrotask(() => callback(null, socket));
      return;
    }
    const first = this.started < this.size;
    if (first) this.started++;
    const startedAt = this.clock.now();
    this.inner(options, (err, s) => {
      if (err) {
        if (first) this.started--;
        callback(err, null);
        return;
      }
      if (first) this.onFirstOpen?.(startedAt, this.clock.now());
      callback(null, s);
    });
  };

  /**
   * Opens up to `n` connections to `origin` at once, no more than the pool's size counting those
   * already opened, and resolves with how many are open and waiting. One that cannot be opened is
   * left to the run: its requests will meet the same error, as records.
   */
  async open(origin: URL, n: number): Promise<number> {
    const count = Math.max(0, Math.min(n, this.size - this.started));
    this.started += count;
    const options = connectOptions(origin);
    await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<void>((resolve) => {
            this.inner(options, (err, socket) => {
              if (err) this.started--;
              else this.keep(socket);
              resolve();
            });
          }),
      ),
    );
    return this.ready.size;
  }

  /** Closes the connections nobody took. */
  destroy(): void {
    const sockets = [...this.ready.keys()];
    this.ready.clear();
    for (const s of sockets) s.destroy();
  }

  private keep(socket: Socket): void {
    // Closed before the pool took it (idle too long, closed by the server, reset): the pool never
    // had it, so the next connection it opens is a first one again.
    const drop = (): void => {
      if (!this.ready.delete(socket)) return;
      this.started--;
      socket.destroy();
    };
    socket.setTimeout(IDLE_MS);
    socket.once('timeout', drop);
    socket.once('close', drop);
    socket.on('error', drop);
    this.ready.set(socket, drop);
  }

  private take(): Socket | undefined {
    for (const [socket, drop] of this.ready) {
      this.ready.delete(socket);
      socket.off('timeout', drop);
      socket.off('close', drop);
      socket.off('error', drop);
      socket.setTimeout(0);
      if (!socket.destroyed && socket.readyState === 'open') return socket;
      this.started--;
      socket.destroy();
    }
    return undefined;
  }
}
