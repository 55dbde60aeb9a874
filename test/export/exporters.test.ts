import { describe, expect, it } from 'vitest';
import { parseExportSettings } from '../../src/cli/run/export-settings.js';
import { ConfigError } from '../../src/core/config-error.js';
import { EXPORT_KINDS, EXPORT_KIND_TEXT, type ExportKind } from '../../src/core/export-kind.js';
import { EXPORTERS } from '../../src/export/exporters.js';
import { parseSummary } from '../../src/report/summary-schema.js';
import { scenarioJsonSchema } from '../../src/scenario/json-schema.js';
import { parseScenario } from '../../src/scenario/scenario-parser.js';
import { fixtureSummary } from '../report/fixtures/fixture-summary.js';

const URL = 'http://127.0.0.1:9/metrics';

function scenarioWith(exportList: string): string {
  return `name: exporters
phases:
  - { duration: 1s, rate: 1 }
flows:
  - name: f
    steps:
      - run: {}
export:
${exportList}`;
}

function issuesOf(run: () => unknown): { where: string; message: string }[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => ({ where: i.where, message: i.message }));
    throw err;
  }
  return [];
}

describe('the exporter table', () => {
  it('has one exporter per kind the schemas know, in the same order', () => {
    expect(Object.keys(EXPORTERS)).toEqual([...EXPORT_KINDS]);
    expect(Object.keys(EXPORT_KIND_TEXT)).toEqual([...EXPORT_KINDS]);
  });

  describe.each(EXPORT_KINDS.map((kind) => [kind]))('%s', (kind: ExportKind) => {
    it('validates a minimal scenario entry and --export flag, and its sender is made on demand', async () => {
      const scenario = parseScenario(scenarioWith(`  - { kind: ${kind}, url: "${URL}" }\n`), 's.yaml');
      expect(scenario.exports).toEqual([{ kind, url: URL }]);
      const settings = parseExportSettings({ export: [`${kind}=${URL}`] }, scenario, {});
      expect(settings.targets).toEqual([{ kind, url: URL, headers: {} }]);
      const sender = await EXPORTERS[kind].create({ kind, url: URL, headers: {} }, 1000);
      expect(sender.kind).toBe(kind);
      await sender.close();
    });

    it('is in the JSON Schema and the summary’s schema', () => {
      expect(JSON.stringify(scenarioJsonSchema())).toContain(`"${kind}"`);
      const summary = { ...fixtureSummary(), exports: [{ kind, url: URL, sent: 1, dropped: 0 }] };
      expect(parseSummary(JSON.parse(JSON.stringify(summary)), 'summary.json').exports?.[0]?.kind).toBe(kind);
    });
  });

  it('refuses an unknown kind as before: every problem at once, with file:line in the scenario', () => {
    const text = scenarioWith('  - { kind: statsd, url: "http://x" }\n  - { kind: otlp, url: "ftp://x" }\n');
    expect(issuesOf(() => parseScenario(text, 's.yaml'))).toEqual([
      { where: 's.yaml:9:13', message: 'export[0].kind: expected one of prometheus | otlp, got "statsd"' },
      { where: 's.yaml:10:24', message: 'export[1].url: expected an http(s) URL' },
    ]);
    expect(
      issuesOf(() =>
        parseExportSettings({ export: ['statsd=http://x'], 'export-header': ['statsd:X=Y'] }, undefined, {}),
      ),
    ).toEqual([
      { where: '--export', message: 'expected prometheus|otlp=<URL>, got "statsd=http://x"' },
      {
        where: '--export-header',
        message:
          'expected [prometheus:|otlp:]Header-Name=ENV_VAR (the value is read from that variable), got "statsd:X=Y"',
      },
    ]);
    const summary = { ...fixtureSummary(), exports: [{ kind: 'statsd', url: URL, sent: 1, dropped: 0 }] };
    expect(issuesOf(() => parseSummary(JSON.parse(JSON.stringify(summary)), 'summary.json'))).toHaveLength(1);
  });
});
