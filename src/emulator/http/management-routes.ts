import type { IncomingMessage, ServerResponse } from 'node:http';
import { EndpointCreateInputSchema } from '../../../contracts/management/schemas.js';
import { LIMITS } from '../../../contracts/queue/limits.js';
import type { EmulatorCore, EndpointRecord } from '../emulator-core.js';
import { MAX_WORKERS } from '../options.js';
import { readJson, stalledMessage } from './json-body.js';
import { decodeSegment, describeIssues } from './params.js';
import { sendJson, sendMessage } from './reply.js';

/** Largest management body we read; endpoint definitions are small. */
const MANAGEMENT_BODY_LIMIT = 1024 * 1024;

/**
 * What CreateEndpoint fills in for a field the body leaves out. gpuCount, idleTimeout, computeType,
 * scalerType and scalerValue are the REST v1 document's defaults (restated in the project's
 * fixture, test/fixtures/management-openapi.json, whose defaults test/emulator/management.test.ts
 * holds this table to). The document gives workersMin and workersMax no default: the emulator
 * takes 0 and 3, the values the document's examples show.
 */
const CREATE_DEFAULTS = {
  workersMin: 0,
  workersMax: 3,
  idleTimeout: 5,
  gpuCount: 1,
  computeType: 'GPU',
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
} as const;

/**
 * `/v1/...`: the two management operations of SPEC "Management REST API", shaped as the REST v1
 * document says: StartPod (200 / 400 unknown pod / 401) and CreateEndpoint (200 Endpoint / 400).
 * Errors are `{"message"}`.
 */
export class ManagementRoutes {
  constructor(private readonly core: EmulatorCore) {}

  /** Answers the request; a returned promise settles when an asynchronous answer is over. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | undefined {
    const parts = path.split('/');
    if (parts[parts.length - 1] === '' && parts.length > 3) parts.pop();
    if (req.method === 'POST' && parts.length === 5 && parts[2] === 'pods' && parts[4] === 'start') {
      this.startPod(res, parts[3] ?? '');
      return;
    }
    if (req.method === 'POST' && parts.length === 3 && parts[2] === 'endpoints') {
      return this.createEndpoint(req, res);
    }
    sendMessage(
      res,
      404,
      `${req.method ?? ''} ${path.slice(0, 200)} is not emulated (only POST /v1/pods/{podId}/start and POST /v1/endpoints)`,
    );
  }

  private ok(res: ServerResponse, body: unknown): void {
    sendJson(res, this.core.policy.answerStatus(200, 'management'), body);
  }

  /** An error of StartPod or CreateEndpoint. */
  private refuse(res: ServerResponse, declared: number, message: string): void {
    const policy = this.core.policy;
    const status = policy.answerStatus(declared, 'management');
    sendJson(res, status, { message: policy.messageField(message, status) });
  }

  private startPod(res: ServerResponse, rawId: string): void {
    const podId = decodeSegment(rawId);
    if (podId === undefined || !this.core.pods.has(podId)) {
      this.refuse(res, 400, `invalid Pod ID ${JSON.stringify(podId ?? rawId)}: no such pod`);
      return;
    }
    this.ok(res, { id: podId, desiredStatus: 'RUNNING' });
  }

  private async createEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, MANAGEMENT_BODY_LIMIT, this.core.config.bodyTimeoutMs);
    if (body.kind === 'aborted') return;
    if (body.kind === 'stalled') {
      sendJson(res, 408, { message: stalledMessage(body.ms) }, { connection: 'close' });
      return;
    }
    if (body.kind === 'too-large') {
      this.refuse(res, 400, `request body over ${String(MANAGEMENT_BODY_LIMIT)} bytes`);
      return;
    }
    if (body.kind === 'invalid') {
      this.refuse(res, 400, body.message);
      return;
    }
    const parsed = EndpointCreateInputSchema.safeParse(body.value);
    if (!parsed.success) {
      this.refuse(res, 400, `invalid EndpointCreateInput: ${describeIssues(parsed.error.issues)}`);
      return;
    }
    const input = { ...CREATE_DEFAULTS, ...parsed.data };
    const problems: string[] = [];
    if (input.workersMin > input.workersMax) problems.push('workersMin must not exceed workersMax');
    // Every simulated worker is an object with timers: an unbounded count would be a request that
    // exhausts the emulator's memory.
    if (input.workersMax > MAX_WORKERS)
      problems.push(`workersMax must be at most ${String(MAX_WORKERS)} in the emulator`);
    const timeout = input.executionTimeoutMs ?? LIMITS.executionTimeout.default;
    if (timeout < LIMITS.executionTimeout.min || timeout > LIMITS.executionTimeout.max) {
      problems.push(
        `executionTimeoutMs must be from ${String(LIMITS.executionTimeout.min)} to ${String(LIMITS.executionTimeout.max)}`,
      );
    }
    if (problems.length > 0) {
      this.refuse(res, 400, `invalid EndpointCreateInput: ${problems.join('; ')}`);
      return;
    }
    const id = this.core.newEndpointId();
    this.core.addEndpoint({
      ...this.core.defaultSettings(id, false),
      workersMin: input.workersMin,
      workersMax: input.workersMax,
      idleTimeoutMs: input.idleTimeout * 1000,
      executionTimeoutMs: timeout,
    });
    const record: EndpointRecord = {
      id,
      name: input.name ?? `endpoint-${id}`,
      templateId: input.templateId,
      gpuTypeIds: input.gpuTypeIds ?? [],
      gpuCount: input.gpuCount,
      workersMin: input.workersMin,
      workersMax: input.workersMax,
      idleTimeout: input.idleTimeout,
      computeType: input.computeType,
      executionTimeoutMs: timeout,
      scalerType: input.scalerType,
      scalerValue: input.scalerValue,
      createdAt: new Date().toISOString(),
      userId: 'user_jobstorm_emulator',
      version: 0,
      env: {},
      instanceIds: [],
      workers: [],
    };
    // Fields the REST v1 Endpoint also carries are echoed when given.
    for (const key of [
      'allowedCudaVersions',
      'dataCenterIds',
      'minCudaVersion',
      'networkVolumeId',
      'networkVolumeIds',
    ] as const) {
      if (input[key] !== undefined) record[key] = input[key];
    }
    this.core.records.set(id, record);
    this.ok(res, this.core.policy.createdRecord(record));
  }
}
