// Bundles the CLI (and the two worker entries it spawns) into dist/cli/ from tsc's output in
// dist/src/, so that `jobstorm` starts by reading a few files instead of resolving and compiling
// some 450 modules one by one: on this kind of machine that was a third of a short run's CPU.
// zod, yaml, yargs and hdr-histogram-js go into the bundle (zod's 60 locale files, unused, are
// left out); the other dependencies stay where npm put them: they load lazily, spawn their own
// files (autocannon, tsx, esbuild) or are read as files (uplot). The library (`import 'jobstorm'`)
// stays dist/src/index.js.
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { URL } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const BUNDLED = new Set(['zod', 'yaml', 'yargs', 'hdr-histogram-js']);
const external = Object.keys(pkg.dependencies).filter((name) => !BUNDLED.has(name));

// Chunk names carry a content hash, so each build leaves the last one's chunks behind. They are kept
// for one more build: a run started from the last build loads some chunks lazily (reports at its
// end) and must find them even if the checkout is rebuilt meanwhile. Older ones are removed.
const dir = new URL('dist/cli/', root);
const ledger = new URL('.builds.json', dir);
/** @type {string[][]} the output files of the last two builds, the newest last */
const builds = existsSync(ledger) ? JSON.parse(readFileSync(ledger, 'utf8')) : [];

const result = await build({
  absWorkingDir: new URL('.', root).pathname,
  // The workers' names are fixed: src/core/module-worker.ts finds `<name>.js` beside its caller.
  entryPoints: {
    main: 'dist/src/cli/main.js',
    'shard-worker': 'dist/src/runner/shard-worker.js',
    'worker-entry': 'dist/src/emulator/worker-entry.js',
  },
  outdir: 'dist/cli',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...external, ...external.map((name) => `${name}/*`)],
  // CommonJS dependencies inside the bundle still call require().
  banner: {
    js: "import { createRequire as __jobstormRequire } from 'node:module'; const require = __jobstormRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const keep = new Set([...outputs, ...(builds.at(-1) ?? []), basename(ledger.pathname)]);
for (const file of readdirSync(dir)) if (!keep.has(file)) rmSync(new URL(file, dir));
writeFileSync(ledger, JSON.stringify([builds.at(-1) ?? [], outputs]));
