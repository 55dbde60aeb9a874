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
  'tls',
  'bad-json',
  'protocol',
  'other',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Kinds that mean no connection was made (a TLS verdict on the handshake is one): nothing reached the service. */
export const CONNECT_ERROR_KINDS: ReadonlySet<ErrorKind> = new Set(['refused', 'dns', 'tls']);

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
  JOBSTORM_DEADLINE: 'timeout',
  UND_ERR_ABORTED: 'aborted',
  // Only jobstorm destroys its pools (the wind-down's end): requests cut there are its own.
  UND_ERR_DESTROYED: 'aborted',
  ABORT_ERR: 'aborted',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  EAI_NODATA: 'dns',
  UND_ERR_INFO: 'protocol',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'protocol',
  UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: 'protocol',
  // OpenSSL's certificate verdicts, as Node passes them on.
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls',
  UNABLE_TO_GET_ISSUER_CERT: 'tls',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls',
  HOSTNAME_MISMATCH: 'tls',
};

/** Families of codes: undici's timeouts, llhttp's parse errors, Node's TLS and OpenSSL's. */
const BY_PATTERN: readonly (readonly [RegExp, ErrorKind])[] = [
  [/^UND_ERR_\w*TIMEOUT$/, 'timeout'],
  [/^HPE_/, 'protocol'],
  [/^(ERR_TLS_|ERR_SSL_|CERT_|ERR_OSSL_)/, 'tls'],
];

function kindOf(code: string | undefined): ErrorKind | undefined {
  if (code === undefined) return undefined;
  return BY_CODE[code] ?? BY_PATTERN.find(([pattern]) => pattern.test(code))?.[1];
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Classifies anything thrown by the transport; never throws itself. undici wraps some failures
 * (a socket error whose cause is the TLS handshake's verdict): a cause that names a more precise
 * kind wins, and its code is the one kept, since it is the one that says what went wrong.
 */
export function toRequestError(err: unknown): RequestError {
  const e = err as { name?: unknown; message?: unknown; cause?: unknown } | null;
  const rawCode = codeOf(e);
  const causeCode = codeOf(e?.cause);
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const own = kindOf(rawCode);
  const cause = kindOf(causeCode);
  let kind: ErrorKind;
  let code: string | undefined;
  if (cause !== undefined && (own === undefined || own === 'reset' || cause === 'tls')) {
    kind = cause;
    code = causeCode;
  } else {
    kind = own ?? 'other';
    code = rawCode ?? causeCode;
  }
  if (kind === 'other' && (e?.name === 'AbortError' || e?.name === 'TimeoutError')) {
    kind = e.name === 'TimeoutError' ? 'timeout' : 'aborted';
  }
  return code ? { kind, code, message } : { kind, message };
}
