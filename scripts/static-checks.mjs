// `npm test`'s first half: the type check and the lint, side by side. Each is one single-threaded
// process (tsc, and eslint building its own typed program), so on two cores together they take the
// time of the longer one. Each one's output is printed whole when it ends, not interleaved.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const CHECKS = [
  ['typecheck', 'npm', ['run', '--silent', 'typecheck']],
  ['lint', 'npm', ['run', '--silent', 'lint']],
];

function run([name, command, args]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => resolve({ name, code: 1, text: String(err), seconds: 0 }));
    child.on('close', (code, signal) =>
      resolve({
        name,
        code: code ?? (signal ? 1 : 0),
        text: Buffer.concat(output).toString(),
        seconds: (Date.now() - started) / 1000,
      }),
    );
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const r of results) {
  if (r.text.trim() !== '') process.stdout.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
  process.stdout.write(
    `${r.name}: ${r.code === 0 ? 'passed' : `failed (exit ${String(r.code)})`} in ${r.seconds.toFixed(1)} s\n`,
  );
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
