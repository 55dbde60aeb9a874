import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ProcessCpu, firstChild, ticksAt } from '../../bench/process-cpu.js';

describe('bench/process-cpu', () => {
  it('interpolates ticks between the samples around a time, and answers nothing outside them', () => {
    const samples = [
      [1000, 10],
      [1100, 30],
      [1300, 30],
      [1400, 70],
    ] as const;
    expect(ticksAt(samples, 1000)).toBe(10);
    expect(ticksAt(samples, 1050)).toBe(20);
    expect(ticksAt(samples, 1200)).toBe(30);
    expect(ticksAt(samples, 1375)).toBe(60);
    expect(ticksAt(samples, 1400)).toBe(70);
    expect(ticksAt(samples, 999)).toBeUndefined();
    expect(ticksAt(samples, 1401)).toBeUndefined();
    expect(ticksAt([], 1000)).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    "reads a real child's CPU from /proc: its first child found, the series closed by the exit figure",
    async () => {
      // A shell that runs one child: the sampler must find that child, as it finds what /usr/bin/time runs.
      const sh = spawn('/bin/sh', ['-c', 'sleep 30; true'], { stdio: 'ignore' });
      const pid = sh.pid as number;
      let child: number | undefined;
      for (let i = 0; i < 2000 && child === undefined; i++) {
        await new Promise((r) => setTimeout(r, 5));
        child = firstChild(pid);
      }
      expect(child).toBeGreaterThan(0);
      const cpu = new ProcessCpu(() => child, 10);
      await new Promise((r) => setTimeout(r, 60));
      const start = Date.now() - 40;
      await new Promise((r) => setTimeout(r, 40));
      process.kill(child as number);
      await new Promise((r) => sh.once('exit', r));
      // A sleeping process spends (next to) no CPU; the closing figure is what the exit reported.
      const end = Date.now();
      cpu.stop(end + 5, 0.5);
      expect(cpu.between(start, start + 20)).toBeCloseTo(0, 1);
      expect(cpu.between(start, end + 5)).toBeGreaterThan(0.4);
      expect(cpu.between(start - 60_000, end)).toBeUndefined();
    },
  );
});
