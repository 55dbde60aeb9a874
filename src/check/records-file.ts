import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ConfigError } from '../core/config-error.js';
import { RECORD_VERSION, type JobstormRecord, type RunRecord } from '../core/record.js';

/**
 * Reads a records.ndjson file line by line (never whole into memory). The first record must be the
 * `run` record; a malformed line or a record of another version is a ConfigError naming the line.
 */
export async function* readRecords(file: string): AsyncGenerator<JobstormRecord> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n++;
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ConfigError([{ where: `${file}:${String(n)}`, message: 'not a JSON record' }]);
      }
      const r = value as { v?: unknown; type?: unknown };
      if (r.v !== RECORD_VERSION)
        throw new ConfigError([
          {
            where: `${file}:${String(n)}`,
            message: `record version ${String(r.v)} is not ${String(RECORD_VERSION)}; this jobstorm reads version ${String(RECORD_VERSION)}`,
          },
        ]);
      if (n === 1 && r.type !== 'run')
        throw new ConfigError([{ where: `${file}:1`, message: 'a records file starts with the run record' }]);
      yield value as JobstormRecord;
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([{ where: file, message: `cannot read records: ${(err as Error).message}` }]);
  }
}

/** Serializes one record as an ndjson line. */
export function recordLine(r: JobstormRecord): string {
  return `${JSON.stringify(r)}\n`;
}

export function isRunRecord(r: JobstormRecord): r is RunRecord {
  return r.type === 'run';
}
