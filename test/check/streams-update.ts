import { existsSync, mkdirSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { loadOpenApiRules, type OpenApiRules } from '../../src/check/openapi-rules.js';
import { recordLine } from '../../src/check/records-file.js';
import type { WebhookAnswers } from '../../src/runner/webhook-receiver.js';
import { MANAGEMENT_OPENAPI } from '../helpers/management-openapi.js';
import { exactProofProblems } from './exact-proof.js';
import { proofRun, type ProofResult } from './proof-run.js';
import { faultOf, nameOf, PROOFS, type Proof } from './proof-table.js';
import {
  countsOf,
  MANIFEST_FILE,
  readStream,
  replay,
  STREAMS_DIR,
  streamFile,
  type SavedStream,
} from './saved-streams.js';
import { SCALING_PROOFS } from './scaling-scenarios.js';

/*
 * `npm run streams:update [-- --openapi <file>]`: runs every fault proof of the proof table (and
 * the scaling proofs) live, and the faithful run of each of their scenarios, and saves each run's
 * records to test/check/streams/ with a manifest of what a replay of each must find. A run whose
 * proof is not exact (timing on a loaded machine) is run again, so a saved stream always proves
 * its row. The management calls are judged with the project's fixture (MANAGEMENT_OPENAPI), the
 * document saved-streams.test.ts replays with, unless --openapi names another. Review the
 * manifest's diff (git diff test/check/streams) before committing.
 */

const ATTEMPTS = 3;

function openApiDoc(argv: string[]): string {
  const at = argv.indexOf('--openapi');
  const file = at === -1 ? MANAGEMENT_OPENAPI : argv[at + 1];
  if (!file || !existsSync(file))
    throw new Error(`streams:update: no OpenAPI document at ${String(file)}; give one with --openapi <file>`);
  return file;
}

interface Run {
  fault: string | null;
  yaml: string;
  proves: string[];
  webhookAnswers?: WebhookAnswers;
}

const optionsOf = (run: Run, rules: OpenApiRules) => {
  const openapi = run.yaml.includes('probe: management') ? rules : undefined;
  return {
    ...(run.fault ? { faults: [run.fault] } : {}),
    ...(run.webhookAnswers ? { webhookAnswers: run.webhookAnswers } : {}),
    ...(openapi ? { openapi } : {}),
  };
};

/** Runs live, saves the records, and judges the saved file by replay: the manifest holds the replay's counts. */
async function save(run: Run, rules: OpenApiRules, faithful?: SavedStream): Promise<SavedStream> {
  const options = optionsOf(run, rules);
  const file = streamFile(run.fault, nameOf(run.yaml), run.webhookAnswers);
  for (let attempt = 1; ; attempt++) {
    const live: ProofResult = await proofRun(run.yaml, options);
    writeFileSync(new URL(file, STREAMS_DIR), gzipSync(live.records.map(recordLine).join(''), { level: 9 }));
    const counts = countsOf(replay(readStream(file), options.openapi));
    const fired = new Map(Object.entries(counts.violations));
    const problems = run.fault
      ? exactProofProblems({
          fault: run.fault,
          mayTrip: faultOf({ fault: run.fault }).mayTrip,
          proves: run.proves,
          fired,
          faithful: new Map(Object.entries(faithful?.violations ?? {})),
        })
      : [...fired].map(([id, n]) => `${id} fired ${String(n)}× on the faithful emulator`);
    if (problems.length === 0 || attempt === ATTEMPTS) {
      if (problems.length > 0) throw new Error(`${file}: ${problems.join('; ')}`);
      console.log(`saved ${file} (${String(live.records.length)} records)`);
      return {
        file,
        fault: run.fault,
        scenario: nameOf(run.yaml),
        ...(run.webhookAnswers ? { webhookAnswers: run.webhookAnswers } : {}),
        openapi: options.openapi !== undefined,
        proves: run.proves,
        ...(faithful ? { faithful: faithful.file } : {}),
        records: live.records.length,
        ...counts,
      };
    }
    console.log(`again ${file}: ${problems.join('; ')}`);
  }
}

async function main(): Promise<void> {
  mkdirSync(STREAMS_DIR, { recursive: true });
  const rules = await loadOpenApiRules(openApiDoc(process.argv.slice(2)));
  const proofs: Proof[] = [...PROOFS, ...SCALING_PROOFS];
  const faithfuls = new Map<string, SavedStream>();
  const streams: SavedStream[] = [];
  for (const p of proofs) {
    const key = `${p.scenario}\n${JSON.stringify(p.webhookAnswers ?? null)}`;
    let base = faithfuls.get(key);
    if (!base) {
      const hooks = p.webhookAnswers ? { webhookAnswers: p.webhookAnswers } : {};
      base = await save({ fault: null, yaml: p.scenario, proves: [], ...hooks }, rules);
      faithfuls.set(key, base);
      streams.push(base);
    }
    const hooks = p.webhookAnswers ? { webhookAnswers: p.webhookAnswers } : {};
    streams.push(await save({ fault: p.fault, yaml: p.scenario, proves: p.ids, ...hooks }, rules, base));
  }
  const names = new Set(streams.map((s) => s.file));
  if (names.size !== streams.length) throw new Error('two streams share a file name');
  for (const f of readdirSync(STREAMS_DIR))
    if (f.endsWith('.ndjson.gz') && !names.has(f)) unlinkSync(new URL(f, STREAMS_DIR));
  writeFileSync(MANIFEST_FILE, `${JSON.stringify({ streams }, null, 1)}\n`);
  const bytes = readdirSync(STREAMS_DIR).reduce((n, f) => n + statSync(new URL(f, STREAMS_DIR)).size, 0);
  console.log(`${String(streams.length)} streams, ${(bytes / 1024).toFixed(0)} KiB in test/check/streams/`);
}

await main();
