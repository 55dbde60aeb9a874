// `npm test`: the type check, the lint and vitest, all three at once. tsc and eslint are each one
// single-threaded process; vitest's two workers wait on real processes (the built CLI, npm,
// Chromium) for part of their time. Side by side they keep both cores busy where one after the
// other left one idle: about 80 s of static checks that vitest's 330 s now absorb. vitest prints
// as it goes; each static check's output is printed whole when vitest is done, so nothing
// interleaves, with a line for each as it ends. Arguments go to vitest (`npm test -- test/cli`).
// All three at the same priority: at a lower one the static checks get nothing while other work
// keeps the cores busy (two CPU hogs left eslint at nice 19 with ~1 % of a core: the suite never
// ended), and an unprivileged process cannot raise its priority back once vitest is done.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const STATIC = [
  ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
];

function run([name, command, args], stdio) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => resolve({ name, code: 1, text: String(err), seconds: 0 }));
    child.on('close', (code, signal) => {
      const result = {
        name,
        code: code ?? (signal ? 1 : 0),
        text: Buffer.concat(output).toString(),
        seconds: (Date.now() - started) / 1000,
      };
      if (stdio !== 'inherit') process.stdout.write(`${line(result)} (its output follows vitest's)\n`);
      resolve(result);
    });
  });
}

function line(r) {
  return `${r.name}: ${r.code === 0 ? 'passed' : `failed (exit ${String(r.code)})`} in ${r.seconds.toFixed(1)} s`;
}

const checks = STATIC.map((c) => run(c, ['ignore', 'pipe', 'pipe']));
const vitest = run(['vitest', 'npx', ['vitest', 'run', ...process.argv.slice(2)]], 'inherit');
const results = [...(await Promise.all(checks)), await vitest];
for (const r of results) {
  if (r.text.trim() !== '') process.stdout.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
  process.stdout.write(`${line(r)}\n`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
