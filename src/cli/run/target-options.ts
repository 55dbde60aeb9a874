import type { Argv } from 'yargs';

/** The flags that pick a target, shared by every command that sends traffic. */
export function withTargetOptions<T>(y: Argv<T>): Argv<T & { target: string | undefined; 'api-key': string | undefined; 'management-url': string | undefined }> {
  return y
    .option('target', { type: 'string', describe: 'endpoint base URL, {serverless_url}/v2/<endpointId>; default: the embedded emulator' })
    .option('api-key', { type: 'string', describe: 'API key (default: $JOBSTORM_API_KEY)' })
    .option('management-url', { type: 'string', describe: 'management API base, {base_url}/v1 (default: the target origin + /v1)' });
}
