import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRecordsFile } from '../../src/session/records-check.js';
import { isRunRecord, readRecords, recordLine } from '../../src/check/records-file.js';
import { ConfigError } from '../../src/core/config-error.js';
import type { JobstormRecord } from '../../src/core/record.js';
import { ex, job, runRecord } from './records.js';

/* A saved records file: read line by line, the run record first, every problem named by its line. */

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobstorm-records-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function readAll(path: string): Promise<JobstormRecord[]> {
  const out: JobstormRecord[] = [];
  for await (const r of readRecords(path)) out.push(r);
  return out;
}

async function issuesOf(p: Promise<unknown>): Promise<readonly { where: string; message: string }[]> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('readRecords', () => {
  it('reads the records of each line, skipping blank ones', async () => {
    const run = runRecord();
    const r = ex('status', 0, 200);
    const path = await file('ok.ndjson', `${recordLine(run)}\n  \n${recordLine(r)}`);
    expect(await readAll(path)).toEqual([run, r]);
    expect(recordLine(r)).toBe(`${JSON.stringify(r)}\n`);
  });

  it('names the line that is not JSON, or of another version', async () => {
    const bad = await file('bad.ndjson', `${recordLine(runRecord())}{not json\n`);
    expect(await issuesOf(readAll(bad))).toEqual([{ where: `${bad}:2`, message: 'not a JSON record' }]);
    const old = await file(
      'old.ndjson',
      `${recordLine(runRecord())}${JSON.stringify({ v: 0, type: 'exchange' })}\n`,
    );
    const [issue] = await issuesOf(readAll(old));
    expect(issue?.where).toBe(`${old}:2`);
    expect(issue?.message).toMatch(/^record version 0 is not /);
  });

  it('wants the run record first', async () => {
    const path = await file('norun.ndjson', recordLine(ex('status', 0, 200)));
    expect(await issuesOf(readAll(path))).toEqual([
      { where: `${path}:1`, message: 'a records file starts with the run record' },
    ]);
  });

  it('says a file it cannot read', async () => {
    const path = join(dir, 'missing.ndjson');
    const [issue] = await issuesOf(readAll(path));
    expect(issue?.where).toBe(path);
    expect(issue?.message).toMatch(/^cannot read records: /);
  });

  it('tells the run record from the others', () => {
    expect(isRunRecord(runRecord())).toBe(true);
    expect(isRunRecord(ex('status', 0, 200))).toBe(false);
  });
});

describe('checkRecordsFile', () => {
  it('checks the records after the run record, as a live run would', async () => {
    const records = [
      runRecord(),
      ex('run', 0, 200, job('a', 'IN_QUEUE'), { jobId: 'a' }),
      ex('status', 10, 200, job('a', 'COMPLETED', { delayTime: 1, executionTime: 1, output: {} }), {
        jobId: 'a',
      }),
    ];
    const path = await file('run.ndjson', records.map(recordLine).join(''));
    const result = await checkRecordsFile(path);
    expect(result.violations).toEqual([]);
    expect(result.coverage['schema.run']).toBe(1);
  });

  it('refuses an empty file', async () => {
    const path = await file('empty.ndjson', '\n');
    expect(await issuesOf(checkRecordsFile(path))).toEqual([
      { where: path, message: 'the records file is empty' },
    ]);
  });
});
