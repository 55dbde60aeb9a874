// Prints the mutation score of each module from Stryker's JSON report (reports/mutation/mutation.json)
// and exits non-zero when a module judged is below its break threshold (test/mutation/modules.json).
// `node scripts/mutation-score.mjs [module...]` judges the modules named, or all of them.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { URL, fileURLToPath } from 'node:url';
import process from 'node:process';
import { moduleTakes, readModules } from './mutation-modules.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const reportPath = new URL('../reports/mutation/mutation.json', import.meta.url);

/** Stryker's own score: detected over valid mutants (compile and runtime errors, ignored: not counted). */
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/**
 * @param {{ files: Record<string, { mutants: { status: string }[] }> }} report
 * @param {Record<string, import('./mutation-modules.mjs').MutationModule>} modules
 */
export function scores(report, modules) {
  /** @type {Record<string, { mutants: number; detected: number; undetected: number }>} */
  const out = {};
  for (const name of Object.keys(modules)) out[name] = { mutants: 0, detected: 0, undetected: 0 };
  for (const [file, result] of Object.entries(report.files)) {
    const rel = relative(root, file.startsWith('/') ? file : `${root}/${file}`).replaceAll('\\', '/');
    const name = Object.keys(modules).find((n) => moduleTakes(modules[n], rel));
    if (name === undefined) continue;
    const s = out[name];
    for (const m of result.mutants) {
      s.mutants++;
      if (DETECTED.has(m.status)) s.detected++;
      else if (UNDETECTED.has(m.status)) s.undetected++;
    }
  }
  return out;
}

function main() {
  const modules = readModules();
  const asked = process.argv.slice(2);
  const unknown = asked.filter((n) => !(n in modules));
  if (unknown.length > 0) {
    process.stderr.write(
      `mutation-score: no module ${unknown.join(', ')}; modules: ${Object.keys(modules).join(', ')}\n`,
    );
    process.exit(2);
  }
  if (!existsSync(reportPath)) {
    process.stderr.write(
      `mutation-score: no report at ${fileURLToPath(reportPath)}; run \`npm run test:mutation\` first\n`,
    );
    process.exit(2);
  }
  const judged = asked.length > 0 ? asked : Object.keys(modules);
  const all = scores(JSON.parse(readFileSync(reportPath, 'utf8')), modules);
  let failed = false;
  process.stdout.write('module               mutants     score  break\n');
  for (const name of Object.keys(modules)) {
    const s = all[name];
    const valid = s.detected + s.undetected;
    const score = valid === 0 ? undefined : (100 * s.detected) / valid;
    const below = judged.includes(name) && (score === undefined || score < modules[name].break);
    failed ||= below;
    const shown = score === undefined ? 'not run' : `${score.toFixed(2)} %`;
    process.stdout.write(
      `${name.padEnd(20)} ${String(s.mutants).padStart(7)}  ${shown.padStart(8)}  ${modules[name].break} %${below ? '  BELOW' : ''}\n`,
    );
  }
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
