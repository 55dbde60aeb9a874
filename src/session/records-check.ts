import type { CheckResult } from '../check/checker.js';
import { readRecords } from '../check/records-file.js';
import { ConfigError } from '../core/config-error.js';
import type { Violation } from '../core/violation.js';
import { CheckStage } from './check-stage.js';
import { RecordPath } from './record-path.js';
import type { CheckSettings } from './session-options.js';

/**
 * `jobstorm check`: the checks of a live run over a saved records file, on the same record path
 * (the records folded once, the checks handed the fold's events), so the results are the same.
 */
export async function checkRecordsFile(
  file: string,
  options: CheckSettings & { onViolation?: (v: Violation) => void } = {},
): Promise<CheckResult> {
  const { onViolation, ...settings } = options;
  const checks = new CheckStage(settings, onViolation ?? (() => undefined));
  const path = new RecordPath({}, [checks]);
  for await (const r of readRecords(file)) path.add(r);
  const result = checks.finish();
  if (!result) throw new ConfigError([{ where: file, message: 'the records file is empty' }]);
  return result;
}
