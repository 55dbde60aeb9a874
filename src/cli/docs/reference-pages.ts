import { checksPage, faultsPage } from './checks-page.js';
import { cliPage } from './cli-page.js';
import { metricsPage } from './metrics-page.js';
import { scenarioPage } from './scenario-page.js';
import { seriesPage } from './series-page.js';
import { stepsPage } from './steps-page.js';

/** The pages generated from the code, by path from the project root; `npm run docs` writes them. */
const PAGES: Readonly<Record<string, () => string>> = {
  'docs/reference/scenario.md': scenarioPage,
  'docs/reference/steps.md': stepsPage,
  'docs/reference/checks.md': checksPage,
  'docs/reference/faults.md': faultsPage,
  'docs/reference/metrics.md': metricsPage,
  'docs/reference/cli.md': cliPage,
  'docs/reference/series.md': seriesPage,
};

/** Every generated page's Markdown, by path from the project root. */
export function referencePages(): Record<string, string> {
  return Object.fromEntries(Object.entries(PAGES).map(([path, render]) => [path, render()]));
}
