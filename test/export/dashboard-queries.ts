import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface Panel {
  title: string;
  targets: { expr: string }[];
}

/** Every PromQL expression of deploy/grafana's dashboard, with its variables filled in for one run. */
export async function dashboardQueries(
  root: string,
  runId: string,
): Promise<{ panel: string; expr: string }[]> {
  const dashboard = JSON.parse(
    await readFile(join(root, 'deploy/grafana/jobstorm-dashboard.json'), 'utf8'),
  ) as { panels: Panel[] };
  return dashboard.panels.flatMap((p) =>
    p.targets.map((t) => ({
      panel: p.title,
      expr: t.expr
        .replaceAll('$scenario', '.*')
        .replaceAll('$run_id', runId)
        .replaceAll('$__rate_interval', '1m'),
    })),
  );
}
