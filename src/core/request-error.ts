/**
 * Request failures are data (DESIGN rule 5): a record carries the kind and, when the transport gave
 * one, its code (undici's UND_ERR_* or the system's ECONNREFUSED and friends).
 */
export const ERROR_KINDS = [
  'refused',
  'reset',
  'timeout',
  'aborted',
  'dns',
  'bad-json',
  'protocol',
  'other',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface RequestError {
  kind: ErrorKind;
  code?: string;
  message?: string;
}

const BY_CODE: Record<string, ErrorKind> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_ABORTED: 'aborted',
  ABORT_ERR: 'aborted',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  HPE_INVALID_CONSTANT: 'protocol',
  UND_ERR_INFO: 'protocol',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'protocol',
};

/** Classifies anything thrown by the transport; never throws itself. */
export function toRequestError(err: unknown): RequestError {
  const e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | null;
  const rawCode = typeof e?.code === 'string' ? e.code : undefined;
  const causeCode =
    typeof (e?.cause as { code?: unknown } | undefined)?.code === 'string'
      ? ((e?.cause as { code: string }).code)
      : undefined;
  const code = rawCode ?? causeCode;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  let kind: ErrorKind = (code && BY_CODE[code]) || 'other';
  if (kind === 'other' && (e?.name === 'AbortError' || e?.name === 'TimeoutError')) {
    kind = e.name === 'TimeoutError' ? 'timeout' : 'aborted';
  }
  return code ? { kind, code, message } : { kind, message };
}
