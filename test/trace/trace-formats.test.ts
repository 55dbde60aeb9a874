import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/index.js';
import { openTrace, type TraceFormatName, type TraceRow } from '../../src/trace/index.js';

const fixture = (name: string) => new URL(`fixtures/${name}`, import.meta.url).pathname;

/** Each format's fixture and the rows it holds, exactly. */
const GOOD: readonly [TraceFormatName, string, TraceRow[]][] = [
  [
    'mooncake',
    'mooncake.jsonl',
    [
      { line: 1, atMs: 0, inputTokens: 6955, outputTokens: 52, cacheBlocks: 14 },
      { line: 2, atMs: 0, inputTokens: 1024, outputTokens: 7 },
      { line: 3, atMs: 3052, inputTokens: 12, outputTokens: 330, cacheBlocks: 1 },
      // Line 4 is blank: skipped, and still counted.
      { line: 5, atMs: 4117.5, inputTokens: 0, outputTokens: 1, cacheBlocks: 0 },
    ],
  ],
  [
    'azure-llm',
    'azure-llm.csv',
    [
      { line: 2, atMs: 0, inputTokens: 374, outputTokens: 44 },
      { line: 3, atMs: 0, inputTokens: 396, outputTokens: 109 },
      { line: 4, atMs: 319.41, inputTokens: 879, outputTokens: 7 },
      { line: 5, atMs: 13_442.8667, inputTokens: 91, outputTokens: 1 },
      // No fraction, and across midnight: 5 h 44 min 13.3194100 s after the first row.
      { line: 6, atMs: 20_653_319.41, inputTokens: 2048, outputTokens: 256 },
    ],
  ],
  [
    'burstgpt',
    'burstgpt.csv',
    [
      {
        line: 2,
        atMs: 5000,
        model: 'ChatGPT',
        inputTokens: 472,
        outputTokens: 18,
        logType: 'Conversation log',
      },
      {
        line: 3,
        atMs: 45_000,
        model: 'ChatGPT',
        inputTokens: 1087,
        outputTokens: 0,
        logType: 'Conversation log',
      },
      { line: 4, atMs: 118_250, model: 'GPT-4', inputTokens: 417, outputTokens: 217, logType: 'API log' },
      { line: 5, atMs: 118_250, model: 'GPT-4, tuned', inputTokens: 30, outputTokens: 2, logType: 'API log' },
    ],
  ],
  [
    'jobstorm',
    'job-trace.jsonl',
    [
      {
        line: 1,
        atMs: 0,
        op: 'run',
        inputBytes: 128,
        actions: [
          { at: 250, op: 'status' },
          { at: 1500, op: 'status' },
        ],
      },
      { line: 2, atMs: 40, op: 'runsync', inputBytes: 64 },
      { line: 3, atMs: 40, op: 'openai', inputTokens: 512, outputTokens: 128 },
      {
        line: 4,
        atMs: 900,
        op: 'run',
        actions: [
          { at: 100, op: 'stream' },
          { at: 300, op: 'cancel' },
          { at: 300, op: 'retry' },
          { at: 2000, op: 'purge-queue' },
        ],
      },
    ],
  ],
];

describe('trace formats', () => {
  it.each(GOOD)('reads a %s trace exactly', (format, file, expected) => {
    const trace = openTrace(fixture(file), format);
    expect([...trace.rows()]).toEqual(expected);
    expect(trace.count()).toBe(expected.length);
    expect(trace.validate()).toEqual({ rowsChecked: expected.length, issues: [], moreIssues: 0 });
    const times = expected.map((r) => r.atMs);
    expect(trace.spanMs()).toBeCloseTo(Math.max(...times) - Math.min(...times), 6);
  });

  it.each<[TraceFormatName, string, [number, string][]]>([
    [
      'mooncake',
      'mooncake-bad.jsonl',
      [
        [2, 'not valid JSON ('],
        [3, 'input_length: missing (expected a number >= 0)'],
        [4, 'timestamp: expected a number >= 0, found -1'],
        [
          5,
          'input_length: expected a whole number >= 0, found 1.5; hash_ids: expected an array of whole numbers',
        ],
        [6, 'expected a JSON object on each line'],
        [7, 'time goes backwards: 5 ms comes after 10 ms (line 1)'],
      ],
    ],
    [
      'azure-llm',
      'azure-llm-bad.csv',
      [
        [3, 'time goes backwards: -180.59 ms comes after 0 ms (line 2)'],
        [
          4,
          'TIMESTAMP: expected a datetime like 2023-11-16 18:15:46.6805900, found "2023-02-30 18:15:47.0000000"',
        ],
        [5, 'ContextTokens: expected a number >= 0, found "-3"'],
        [6, 'the row has 2 fields, the header 3'],
      ],
    ],
    [
      'burstgpt',
      'burstgpt-bad.csv',
      [
        [3, 'Timestamp: expected a number >= 0, found "abc"'],
        [4, 'Model: is empty; Log Type: is empty'],
        [5, 'a quoted field is never closed on this line'],
        [6, 'time goes backwards: 4000 ms comes after 5000 ms (line 2)'],
      ],
    ],
    [
      'jobstorm',
      'job-trace-bad.jsonl',
      [
        [2, 'op: Invalid option: expected one of "run"|"runsync"|"openai"'],
        [3, 'Unrecognized key: "inputToken"'],
        [4, "actions.1.at: 100 ms comes before the previous action's 500 ms"],
        [5, 'actions.0.op: Invalid option'],
        [6, 'outputTokens: Too small'],
      ],
    ],
  ])('refuses the malformed rows of a %s trace, each at its line', (format, file, expected) => {
    const path = fixture(file);
    const trace = openTrace(path, format);
    const result = trace.validate();
    expect(result.issues.map((i) => i.where)).toEqual(expected.map(([line]) => `${path}:${line}`));
    result.issues.forEach((issue, i) => expect(issue.message).toContain(expected[i]?.[1]));
    // The good rows, the one before the first problem and the one after the last, are still read.
    expect(result.rowsChecked).toBeGreaterThan(expected.length);
    // Reading stops at the first bad row, with the same words.
    expect(() => trace.count()).toThrow(ConfigError);
    expect(() => [...trace.rows()]).toThrow(`${path}:${expected[0]?.[0]}: ${expected[0]?.[1]}`);
  });

  it('refuses a CSV trace whose header is not the format’s, naming both, and reads no further', () => {
    const path = fixture('azure-llm-bad-header.csv');
    expect(openTrace(path, 'azure-llm').validate()).toEqual({
      rowsChecked: 0,
      issues: [
        {
          where: `${path}:1`,
          message:
            'expected the header "TIMESTAMP,ContextTokens,GeneratedTokens" (the azure-llm format); found "TIMESTAMP,ContextTokens,Tokens"',
        },
      ],
      moreIssues: 0,
    });
    // A BurstGPT file read as Azure: the same error, with BurstGPT's columns as found.
    expect(() => openTrace(fixture('burstgpt.csv'), 'azure-llm').count()).toThrow(
      'found "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type"',
    );
  });
});
