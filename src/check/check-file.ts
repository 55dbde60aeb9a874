import { ConfigError } from '../core/config-error.js';
import { Checker, type CheckerOptions, type CheckResult } from './checker.js';
import { isRunRecord, readRecords } from './records-file.js';

/** `jobstorm check`: the same Checker over a saved records file. */
export async function checkRecordsFile(file: string, options: CheckerOptions = {}): Promise<CheckResult> {
  let checker: Checker | undefined;
  for await (const r of readRecords(file)) {
    if (!checker) {
      if (!isRunRecord(r))
        throw new ConfigError([{ where: `${file}:1`, message: 'a records file starts with the run record' }]);
      checker = new Checker(r, options);
      continue;
    }
    checker.add(r);
  }
  if (!checker) throw new ConfigError([{ where: file, message: 'the records file is empty' }]);
  return checker.finish();
}
