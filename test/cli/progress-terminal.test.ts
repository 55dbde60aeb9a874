import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The progress line as a user sees it: the built CLI in a real pseudo-terminal of 80 and of 200
 * columns (python3's pty module, the window size set before the CLI starts), and in a pipe.
 */
const root = new URL('../..', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');
const ptyRun = join(root, 'test/cli/fixtures/pty-run.py');
/*
 * scenarios/smoke.yaml without its latency threshold: these tests are about the progress line, on
 * real time, and a p99 bound read off the wall clock fails them on a starved machine for no fault
 * of the line's (issue 46: real-time tests assert outcomes, not wall-clock bounds). Every check and
 * `violations == 0` still judge the run.
 */
const smoke = join(mkdtempSync(join(tmpdir(), 'jobstorm-smoke-')), 'smoke.yaml');
writeFileSync(
  smoke,
  readFileSync(join(root, 'scenarios/smoke.yaml'), 'utf8').replace(/^ *- "p99\(run\) < 500ms"\n/m, ''),
);
if (readFileSync(smoke, 'utf8').includes('p99(run)'))
  throw new Error('smoke.yaml changed: its p99 threshold is still in the copy');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const CSI = new RegExp(`^${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`);

/**
 * What a terminal of `width` columns shows after `bytes`: the cursor wraps when a character is
 * written past the last column; `\r` goes back to the line's start; `ESC [ K` erases to its end.
 */
function screen(bytes: string, width: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i] ?? '';
    if (ch === '\x1b') {
      const seq = CSI.exec(bytes.slice(i))?.[0] ?? ch;
      if (seq.endsWith('K')) rows[row]?.splice(col);
      i += seq.length - 1;
    } else if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      rows[row] ??= [];
    } else {
      if (col >= width) {
        row++;
        col = 0;
        rows[row] ??= [];
      }
      const line = rows[row] ?? [];
      while (line.length < col) line.push(' ');
      line[col] = ch;
      rows[row] = line;
      col++;
    }
  }
  return rows.map((r) => r.join('').trimEnd());
}

/** Each text the live line drew: what follows a clear (`\r ESC [ K`) up to the next \r or \n. */
function liveDraws(bytes: string): string[] {
  return bytes
    .split('\r\x1b[K')
    .slice(1)
    .map((s) => s.split(/[\r\n]/)[0] ?? '')
    .filter((s) => s !== '');
}

const PROGRESS = /^smoke {2}(\d+)s\/4s {2}/;

// Real time: the built CLI in a real terminal and pipe, 4 s of smoke.yaml each; the three mostly
// wait on their arrivals, so they run side by side.
describe.concurrent('the progress line in a terminal and in a log', () => {
  for (const width of [80, 200]) {
    it(`fits a ${String(width)}-column terminal, redrawn in place, and leaves nothing behind`, async () => {
      const out = mkdtempSync(join(tmpdir(), 'jobstorm-pty-'));
      const r = await run('python3', [ptyRun, String(width), 'node', bin, 'run', smoke, '--out', out]);
      expect(r.code, r.stdout).toBe(0);
      const draws = liveDraws(r.stdout).filter((d) => PROGRESS.test(d));
      expect(draws.length, r.stdout).toBeGreaterThanOrEqual(2);
      for (const d of draws) {
        // One column short of the width: the terminal never wraps it.
        expect(d.length, d).toBeLessThan(width);
        expect(d).toMatch(/errors \d+/);
        expect(d).toMatch(/violations \d+/);
        expect(d).toMatch(/jobs/);
      }
      if (width === 200)
        for (const d of draws) expect(d).toMatch(/p99 \S+ {2}.*arrivals\/s|arrivals\/s.*p99 /);
      const shown = screen(r.stdout, width);
      // Redrawn in place and cleared before the summary: no progress line is left on the screen.
      expect(
        shown.filter((l) => /\d+s\/4s/.test(l)),
        shown.join('\n'),
      ).toEqual([]);
      expect(shown.join('\n')).toContain('verdict: PASSED');
    });
  }

  it('in a pipe prints a plain, complete line each second: no carriage return, no escape code', async () => {
    const out = mkdtempSync(join(tmpdir(), 'jobstorm-pipe-'));
    const r = await run('node', [bin, 'run', smoke, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.includes('\r') || r.stderr.includes(String.fromCharCode(27))).toBe(false);
    expect(r.stdout.includes('\r') || r.stdout.includes(String.fromCharCode(27))).toBe(false);
    const lines = r.stderr.split('\n').filter((l) => PROGRESS.test(l));
    expect(lines.length, r.stderr).toBeGreaterThanOrEqual(2);
    const seconds = lines.map((l) => Number(PROGRESS.exec(l)?.[1]));
    // One a second: each line a second after the one before it (two, when a busy machine delays a tick).
    for (let i = 1; i < seconds.length; i++) {
      const step = (seconds[i] ?? 0) - (seconds[i - 1] ?? 0);
      expect(step >= 1 && step <= 2, lines.join('\n')).toBe(true);
    }
    for (const l of lines) expect(l).toMatch(/jobs: submitted \d+ .*unfinished \d+$/);
    // The smoke run's 4xx are all its probes' and the preflight's, and the summary says so.
    expect(r.stdout).toMatch(/^4xx: all \d+ answered probes that send bad requests on purpose/m);
  });
});
