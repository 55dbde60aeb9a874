import type { ConfigIssue } from '../core/config-error.js';
import type { Target } from '../runner/run-options.js';
import type { Scenario } from '../scenario/scenario.js';

/** Where the operations live under the base URL: `/v2/<endpointId>` (the service), or the root (local servers). */
export type RouteLayout = 'v2' | 'root';

export interface RemoteChoice {
  /** The base URL, and where it came from (named in errors). */
  target: string;
  from: string;
  apiKey?: string;
  managementUrl?: string;
  routes?: RouteLayout;
  auth?: 'bearer' | 'bare' | 'none';
}

function parsedUrl(choice: RemoteChoice, issues: ConfigIssue[]): URL | undefined {
  try {
    return new URL(choice.target);
  } catch {
    issues.push({
      where: choice.from,
      message: `not a URL: ${choice.target}; expected {serverless_url}/v2/<endpointId>, or any base URL with --routes root`,
    });
    return undefined;
  }
}

/** What a base URL may not be: another scheme, credentials, a query, a path not ending in /v2/<id>. */
function urlIssues(url: URL, choice: RemoteChoice, issues: ConfigIssue[]): void {
  const where = choice.from;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    issues.push({ where, message: `expected an http or https URL, got ${url.protocol}` });
  if (url.username || url.password)
    issues.push({ where, message: 'put the key in --api-key or JOBSTORM_API_KEY, not in the URL' });
  if (url.search || url.hash) issues.push({ where, message: 'a base URL takes no query or fragment' });
  if ((choice.routes ?? 'v2') === 'v2' && !/\/v2\/[^/]+\/?$/.test(url.pathname)) {
    issues.push({
      where,
      message: `expected a URL ending in /v2/<endpointId>, got ${url.pathname}; for a server that serves the operations directly under this URL (/run, /status/<id>…), add --routes root`,
    });
  }
}

/**
 * Validates a remote target, adding every problem to `issues` (so flags, environment and scenario
 * are reported together, before anything is sent). Returns the target when it is usable.
 */
export function remoteTarget(
  choice: RemoteChoice,
  scenario: Scenario,
  issues: ConfigIssue[],
): Target | undefined {
  const before = issues.length;
  const url = parsedUrl(choice, issues);
  if (url) urlIssues(url, choice, issues);
  const keyless = (choice.auth ?? scenario.target.auth) === 'none';
  if (!choice.apiKey && !keyless)
    issues.push({
      where: '--api-key',
      message:
        'a key is needed for a remote target: give --api-key or set JOBSTORM_API_KEY (or --auth none for a target without authentication)',
    });
  if (scenario.flows.some((f) => JSON.stringify(f.steps).includes('"kind":"advance"')))
    issues.push({
      where: scenario.source,
      message: "advance steps move the embedded emulator's clock; they cannot run against a remote target",
    });
  if (issues.length > before || !url) return undefined;
  const base = choice.target.replace(/\/+$/, '');
  const management = choice.managementUrl ?? `${url.origin}/v1`;
  return { baseUrl: base, managementUrl: management, apiKey: choice.apiKey ?? '', ownsEndpoint: false };
}
