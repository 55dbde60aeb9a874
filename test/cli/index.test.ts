import { describe, expect, it } from 'vitest';
import * as jobstorm from '../../src/index.js';

describe('programmatic API', () => {
  it('exposes what the CLI is built from', () => {
    for (const name of [
      'loadScenario',
      'runScenario',
      'Checker',
      'RunMetrics',
      'buildSummary',
      'writeReports',
      'startEmulator',
      'JobClient',
      'blast',
      'mergeSummaries',
      'ExitCode',
      'SubmissionBodySchema',
      'judgeObservedSequence',
    ]) {
      expect(jobstorm, name).toHaveProperty(name);
    }
  });
});
