import type { z } from 'zod';
import type { ManagementOperation } from '../../src/core/operation.js';
import {
  EndpointCreateInputSchema,
  EndpointSchema,
  ManagementErrorSchema,
  StartPodResponseSchema,
} from './schemas.js';

export interface ManagementOperationContract {
  name: ManagementOperation;
  method: 'POST';
  /** Relative to `{base_url}/v1`; `:podId` is the pod id. */
  path: string;
  summary: string;
  body?: z.ZodType;
  responses: Record<number, z.ZodType>;
  cite: string;
}

export const MANAGEMENT_OPERATION_CONTRACTS: Record<ManagementOperation, ManagementOperationContract> = {
  StartPod: {
    name: 'StartPod',
    method: 'POST',
    path: '/pods/:podId/start',
    summary: 'Start a pod by its id',
    responses: { 200: StartPodResponseSchema, 400: ManagementErrorSchema, 401: ManagementErrorSchema },
    cite: 'SPEC "Management REST API": 200 started, 400 invalid Pod ID, 401 unauthorized',
  },
  CreateEndpoint: {
    name: 'CreateEndpoint',
    method: 'POST',
    path: '/endpoints',
    summary: 'Make a serverless endpoint from a template',
    body: EndpointCreateInputSchema,
    responses: { 200: EndpointSchema, 400: ManagementErrorSchema, 401: ManagementErrorSchema },
    cite: 'SPEC "Management REST API"; REST v1 CreateEndpoint (200 Endpoint, 400 invalid input)',
  },
};
