import { z } from 'zod';

/*
 * The two management operations of SPEC "Management REST API", shaped as the vendor's published
 * REST v1 OpenAPI document declares them. The project keeps those facts in its own fixture
 * (test/fixtures/management-openapi.json); test/emulator/management.test.ts holds these schemas to it.
 */

/** `EndpointCreateInput` of the REST v1 document: only `templateId` is required. */
export const EndpointCreateInputSchema = z.strictObject({
  name: z.string().max(191).optional(),
  templateId: z.string().min(1),
  gpuTypeIds: z.array(z.string()).optional(),
  gpuCount: z.number().int().min(1).optional(),
  workersMin: z.number().int().min(0).optional(),
  workersMax: z.number().int().min(0).optional(),
  idleTimeout: z.number().int().min(1).max(3600).optional(),
  computeType: z.enum(['GPU', 'CPU']).optional(),
  executionTimeoutMs: z.number().int().optional(),
  flashboot: z.boolean().optional(),
  scalerType: z.enum(['QUEUE_DELAY', 'REQUEST_COUNT']).optional(),
  scalerValue: z.number().int().min(1).optional(),
  allowedCudaVersions: z.array(z.string()).optional(),
  minCudaVersion: z.string().optional(),
  cpuFlavorIds: z.array(z.string()).optional(),
  vcpuCount: z.number().int().optional(),
  dataCenterIds: z.array(z.string()).optional(),
  networkVolumeId: z.string().optional(),
  networkVolumeIds: z.array(z.string()).optional(),
});
export type EndpointCreateInput = z.infer<typeof EndpointCreateInputSchema>;

/** `Endpoint` of the REST v1 document (no field is required there; we require `id`). */
export const EndpointSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  templateId: z.string().optional(),
  gpuTypeIds: z.array(z.string()).optional(),
  gpuCount: z.number().int().optional(),
  workersMin: z.number().int().optional(),
  workersMax: z.number().int().optional(),
  idleTimeout: z.number().int().optional(),
  computeType: z.enum(['CPU', 'GPU']).optional(),
  executionTimeoutMs: z.number().int().optional(),
  scalerType: z.enum(['QUEUE_DELAY', 'REQUEST_COUNT']).optional(),
  scalerValue: z.number().int().optional(),
  createdAt: z.string().optional(),
  userId: z.string().optional(),
  version: z.number().int().optional(),
});

/** REST v1 errors are `{ "message" }` (real-service.md). */
export const ManagementErrorSchema = z.looseObject({ message: z.string() });

/** StartPod answers 200 with no body schema: anything (or nothing) is fine. */
export const StartPodResponseSchema = z.unknown();
