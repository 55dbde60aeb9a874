import type { Argv } from 'yargs';

/** The flags that pick a target, shared by every command that sends traffic. */
export function withTargetOptions<T>(y: Argv<T>): Argv<
  T & {
    target: string | undefined;
    'api-key': string | undefined;
    'management-url': string | undefined;
    routes: 'v2' | 'root' | undefined;
  }
> {
  return y
    .option('target', {
      type: 'string',
      describe:
        'endpoint base URL, {serverless_url}/v2/<endpointId> (default: $JOBSTORM_TARGET, else the embedded emulator)',
    })
    .option('routes', {
      choices: ['v2', 'root'] as const,
      describe:
        'where the operations are under --target: v2 (the service, default) or root (/run, /status/<id>… directly under it)',
    })
    .option('api-key', { type: 'string', describe: 'API key (default: $JOBSTORM_API_KEY)' })
    .option('management-url', {
      type: 'string',
      describe: 'management API base, {base_url}/v1 (default: the target origin + /v1)',
    });
}
