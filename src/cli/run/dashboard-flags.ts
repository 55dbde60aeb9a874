import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { Dashboard, isLoopback, type LiveState } from '../../dashboard/index.js';
import { clockOf, type CliIo } from '../command.js';

/** `--dashboard [port]` and `--dashboard-host`, shared by `run`, `capacity` and `dashboard`. */
export const DASHBOARD_OPTIONS = {
  dashboard: {
    type: 'string',
    describe:
      'serve a live dashboard of the run in the browser while it runs, on 127.0.0.1 (bare or 0: a free port; the URL is printed)',
  },
  'dashboard-host': {
    type: 'string',
    describe:
      'address the dashboard binds (default 127.0.0.1); elsewhere it is reachable from other machines and carries no authentication',
  },
} as const;

export interface DashboardArgs {
  dashboard?: string;
  'dashboard-host'?: string;
}

export interface DashboardSettings {
  port: number;
  host: string;
}

/** The flags, checked: undefined without `--dashboard`; a bad port or host is an issue. */
export function parseDashboardFlags(
  args: DashboardArgs,
  issues: ConfigIssue[],
  names = { port: '--dashboard', host: '--dashboard-host' },
): DashboardSettings | undefined {
  const host = args['dashboard-host'];
  if (host !== undefined && host.trim() === '')
    issues.push({ where: names.host, message: 'is empty: give an address such as 127.0.0.1 or 0.0.0.0' });
  if (args.dashboard === undefined) {
    if (host !== undefined) issues.push({ where: names.host, message: `needs ${names.port}` });
    return undefined;
  }
  const text = args.dashboard.trim();
  const port = text === '' ? 0 : Number(text);
  if (!/^\d*$/.test(text) || port > 65535) {
    issues.push({
      where: names.port,
      message: `"${args.dashboard}" is not a port: give 0–65535, or no value for a free one`,
    });
    return undefined;
  }
  return { port, host: host?.trim() || '127.0.0.1' };
}

/**
 * Serves the dashboard and says where, on stderr (even with --quiet: the user asked for it).
 * A page bound beyond loopback is warned about: it has no authentication.
 */
export async function startDashboard(
  s: DashboardSettings,
  io: CliIo,
  title: string,
  source: () => LiveState | undefined,
): Promise<Dashboard> {
  const dashboard = new Dashboard({ host: s.host, port: s.port, clock: clockOf(io), title, source });
  let url: string;
  try {
    url = await dashboard.start();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConfigError([
      {
        where: '--dashboard',
        message: `cannot listen on ${s.host}:${String(s.port)} (${e.code ?? e.message})`,
      },
    ]);
  }
  if (!isLoopback(s.host))
    io.err(
      `jobstorm: warning: the dashboard listens on ${s.host}: anyone who can reach this machine can read it (it has no authentication)`,
    );
  io.err(`jobstorm: dashboard: ${url}`);
  return dashboard;
}
