import { ConfigError } from '../core/config-error.js';
import { closestName } from './closest-name.js';
import { htmlReporter } from './html-reporter.js';
import { jsonReporter } from './json-reporter.js';
import { junitReporter } from './junit-reporter.js';
import { markdownReporter } from './markdown-reporter.js';
import type { Reporter } from './reporter.js';
import { terminalReporter } from './terminal-reporter.js';

const reporters = new Map<string, Reporter>();

/** Adds a reporter (or replaces one of the same name): how a new output format plugs in. */
export function registerReporter(reporter: Reporter): void {
  reporters.set(reporter.name, reporter);
}

export function reporterNames(): string[] {
  return [...reporters.keys()];
}

/** An unknown name is a configuration error with a suggestion, like a mistyped threshold metric. */
export function getReporter(name: string): Reporter {
  const r = reporters.get(name);
  if (r) return r;
  const hint = closestName(name, reporterNames());
  throw new ConfigError([
    {
      where: 'reporter',
      message: `unknown reporter "${name}"${hint ? `; did you mean "${hint}"?` : ''} (known: ${reporterNames().join(', ')})`,
    },
  ]);
}

for (const r of [terminalReporter, jsonReporter, markdownReporter, junitReporter, htmlReporter])
  registerReporter(r);
