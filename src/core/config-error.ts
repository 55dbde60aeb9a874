/** One problem in the user's configuration, located as precisely as we can. */
export interface ConfigIssue {
  /** `file:line:column`, a flag (`--threshold`), or a key path. */
  where: string;
  message: string;
}

/**
 * Bad configuration is reported all at once (DESIGN rule 5), so the user fixes everything in one
 * pass. Commands map it to exit code 2.
 */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.where}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
