import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Builds dist/ once, before any test file starts, when a source is newer than it. Tests that run
 * the built CLI (`node dist/cli/main.js`, `npx jobstorm`) used to rebuild it themselves in
 * their beforeAll: tsc rewrote dist/ file by file while another test file's CLI was importing it,
 * and that CLI failed with "does not provide an export named …". One build, before all, has no
 * such window.
 */
const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'dist/cli/main.js');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  const sources = Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'contracts')),
    statSync(join(root, 'tsconfig.json')).mtimeMs,
    statSync(join(root, 'scripts/bundle-cli.mjs')).mtimeMs,
  );
  if (existsSync(bin) && statSync(bin).mtimeMs >= sources) return;
  // tsc emits even when a file has a type error; typecheck is its own CI step, so only the bin's
  // presence is this setup's to judge.
  try {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  } catch {
    /* judged below */
  }
  if (!existsSync(bin)) throw new Error('global setup: `npm run build` did not produce dist/cli/main.js');
}
