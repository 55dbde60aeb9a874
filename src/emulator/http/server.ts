import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorCore } from '../emulator-core.js';
import type { Credential } from '../policy/policy.js';
import { AdminRoutes } from './admin-routes.js';
import { ManagementRoutes } from './management-routes.js';
import { QueueRoutes } from './queue-routes.js';
import { sendOpenAiError } from './openai-reply.js';
import { lastResort, sendError, sendMessage } from './reply.js';
import { isWorkerPath, WorkerRoutes } from './worker-routes.js';

/** The OpenAI-compatible routes answer errors in OpenAI's shape, 401 included. */
const OPENAI_PATH = /^\/v2\/[^/]+\/openai\//;

const MALFORMED_BODY = '{"error":"malformed HTTP request"}';
const MALFORMED = `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${String(MALFORMED_BODY.length)}\r\n\r\n${MALFORMED_BODY}`;

/**
 * The HTTP face of the emulator on bare node:http (no framework: it is benchmarked against a bare
 * server). Authentication comes first, before anything costly: `Bearer KEY` or the bare key
 * (SPEC "Authentication" 2); missing or wrong is 401.
 */
export class EmulatorServer {
  private readonly server: Server;
  private readonly queue: QueueRoutes;
  private readonly management: ManagementRoutes;
  private readonly admin: AdminRoutes;
  private readonly workers: WorkerRoutes;
  private readonly bare: string;
  private readonly bearer: string;

  constructor(
    private readonly core: EmulatorCore,
    onAdvance: (now: number) => void,
  ) {
    this.bare = core.config.apiKey;
    this.bearer = `Bearer ${core.config.apiKey}`;
    this.queue = new QueueRoutes(core);
    this.management = new ManagementRoutes(core);
    this.admin = new AdminRoutes(core, onAdvance);
    this.workers = new WorkerRoutes(core);
    this.server = createServer({ keepAliveTimeout: 10_000 }, (req, res) => {
      this.handle(req, res);
    });
    // Clients may drop a connection mid-request; that is their business, not a crash.
    this.server.on('clientError', (_err, socket) => {
      if (socket.writable) socket.end(MALFORMED);
      else socket.destroy();
    });
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      this.route(req, res)?.catch((err: unknown) => lastResort(res, err));
    } catch (err) {
      lastResort(res, err);
    }
  }

  /** Routes the request; a returned promise is an answer still under way. */
  private route(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const isAdmin = path.startsWith('/_emulator/') || path === '/_emulator';
    const isManagement = path.startsWith('/v1/');
    // Real workers send the bare key; the API's own acceptance rule is not about them.
    const isWorker = path.startsWith('/v2/') && isWorkerPath(path);
    if (!this.authorized(req.headers.authorization, isAdmin || isWorker)) {
      if (isManagement)
        sendMessage(res, 401, 'unauthorized: missing or wrong API key in the Authorization header');
      else if (OPENAI_PATH.test(path))
        sendOpenAiError(
          res,
          this.core.policy,
          401,
          'unauthorized: missing or wrong API key in the Authorization header',
          { code: 'invalid_api_key' },
        );
      else
        sendError(
          res,
          401,
          'unauthorized: missing or wrong API key in the Authorization header (Bearer <key> or the bare key)',
        );
      return;
    }
    if (isWorker) {
      this.workers.handle(req, res, path, query);
      return;
    }
    if (path.startsWith('/v2/')) return this.queue.handle(req, res, path, query);
    else if (isManagement) {
      const error = this.core.policy.serverError(this.core.rng);
      if (error !== undefined) {
        sendMessage(res, 500, error);
        return;
      }
      return this.management.handle(req, res, path);
    } else if (isAdmin) return this.admin.handle(req, res, path, query);
    else
      sendError(
        res,
        404,
        `no route ${path.slice(0, 200)}: the queue API is under /v2/<endpointId>/, management under /v1/, control under /_emulator/`,
      );
    return undefined;
  }

  /** The control plane and the workers' side take the key in either form; the API under test as the policy says. */
  private authorized(header: string | undefined, isAdmin: boolean): boolean {
    const credential = this.credential(header);
    return isAdmin ? credential !== 'wrong' : this.core.policy.accepts(credential);
  }

  private credential(header: string | undefined): Credential {
    if (header === this.bearer) return 'bearer';
    if (header === this.bare) return 'bare';
    if (header !== undefined && /^bearer\s+/i.test(header) && header.replace(/^bearer\s+/i, '') === this.bare)
      return 'bearer';
    return 'wrong';
  }
}
