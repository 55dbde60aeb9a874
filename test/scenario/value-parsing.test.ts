import { describe, expect, it } from 'vitest';
import { formatDuration, parseByteSize, parseDuration } from '../../src/scenario/index.js';
import { closestName } from '../../src/scenario/suggestion.js';

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1m30s250ms', 90_250],
    ['0', 0],
    [' 10s ', 10_000],
    ['250us', 0.25],
    ['250µs', 0.25],
    ['250μs', 0.25],
    ['1ms500us', 1.5],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'fast', '-5s', '5 s', '1y', 's', '1.s', '10x', '5ns', 'us', '5 us', '250', '0.5'])(
    '%j is not a duration',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([
    [0, '0ms'],
    [250, '250ms'],
    [90_000, '1m30s'],
    [5_400_000, '1h30m'],
    [172_800_001, '2d1ms'],
    [1500.5, '1500.5ms'],
  ])('%d ms reads as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('byte sizes', () => {
  it.each([
    ['0', 0],
    ['1000B', 1000],
    ['512B', 512],
    ['10kB', 10_000],
    ['10KB', 10_000],
    ['10MB', 10_000_000],
    ['10MiB', 10_485_760],
    ['1GiB', 1_073_741_824],
    ['1.5MB', 1_500_000],
  ])('%s is %d bytes', (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(['', 'big', '10 parsecs', '-1MB', '10Mb', '1000'])('%j is not a size', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});

describe('did-you-mean suggestions', () => {
  const steps = ['run', 'runsync', 'poll', 'stream', 'cancel', 'status'];
  it.each([
    ['pol', 'poll'],
    ['stauts', 'status'],
    ['Cancel', 'cancel'],
    ['runsnyc', 'runsync'],
    ['frobnicate', undefined],
  ])('%s → %s', (name, hint) => {
    expect(closestName(name, steps)).toBe(hint);
  });
});
