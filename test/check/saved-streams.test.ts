import { beforeAll, describe, expect, it } from 'vitest';
import { loadOpenApiRules, type OpenApiRules } from '../../src/check/openapi-rules.js';
import { MANAGEMENT_OPENAPI } from '../helpers/management-openapi.js';
import { exactProofProblems } from './exact-proof.js';
import { faultOf, nameOf, PROOFS, type Proof } from './proof-table.js';
import { countsOf, readManifest, readStream, replay, streamFile, type SavedStream } from './saved-streams.js';
import { SCALING_PROOFS } from './scaling-scenarios.js';

/*
 * The live fault proofs (faults.test.ts, scaling.test.ts) replayed from their saved records
 * (`npm run streams:update` writes them): every check sees the same records as live, so each
 * finding and each judged observation is pinned per id, fast and without an emulator. This is the
 * file the mutation run has for the checks that only a whole run exercises.
 */
const manifest = readManifest();
const byFile = new Map(manifest.streams.map((s) => [s.file, s]));
let rules: OpenApiRules | undefined;

beforeAll(async () => {
  rules = await loadOpenApiRules(MANAGEMENT_OPENAPI);
});

const replayed = (s: SavedStream) => replay(readStream(s.file), s.openapi ? rules : undefined);
const title = (s: SavedStream): string =>
  `${s.file}: ${s.proves.join(', ') || 'nothing'} (${String(Object.keys(s.violations).length)} ids fire, ${String(Object.keys(s.coverage).length)} judge)`;

describe('saved record streams', () => {
  it('hold every row of the proof table, with the ids it proves, and the faithful run of its scenario', () => {
    const proofs: Proof[] = [...PROOFS, ...SCALING_PROOFS];
    for (const p of proofs) {
      const file = streamFile(p.fault, nameOf(p.scenario), p.webhookAnswers);
      const saved = byFile.get(file);
      expect(saved, `no saved stream ${file}: run npm run streams:update`).toBeDefined();
      expect(saved?.proves).toEqual(p.ids);
      expect(saved?.webhookAnswers).toEqual(p.webhookAnswers);
      expect(byFile.get(saved?.faithful ?? '')?.fault).toBeNull();
    }
  });

  it.each(manifest.streams.map((s) => [title(s), s] as const))('%s', (_title, s) => {
    const result = replayed(s);
    expect(countsOf(result)).toEqual({ violations: s.violations, coverage: s.coverage });
    if (s.fault === null) {
      expect(s.violations).toEqual({});
      return;
    }
    const faithful = byFile.get(s.faithful ?? '');
    expect(faithful?.fault).toBeNull();
    expect(
      exactProofProblems({
        fault: s.fault,
        mayTrip: faultOf({ fault: s.fault }).mayTrip,
        proves: s.proves,
        fired: new Map(result.violations.map((g) => [g.id, g.count])),
        faithful: new Map(Object.entries(faithful?.violations ?? { missing: 1 })),
      }),
    ).toEqual([]);
    // Every finding cites a record of the stream.
    const seqs = new Set(readStream(s.file).flatMap((r) => ('seq' in r ? [r.seq] : [])));
    for (const g of result.violations)
      for (const e of g.examples) expect(seqs.has(e.evidence.seq ?? -1), g.id).toBe(true);
  });
});
