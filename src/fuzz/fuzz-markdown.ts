import { formatMs, markdownTable, textTable } from '../report/format.js';
import type { EdgeCount, EdgeTable } from './edge-coverage.js';
import type { FindingReport, FuzzReport } from './fuzz-report.js';
import type { FuzzJob } from './job-plan.js';

/*
 * fuzz.md, and the lines the terminal shows: the verdict first, then each finding as the few calls
 * that make it fire and the command that shows it again, then what was tried, as the transition
 * table with a count on each row (a row at 0 was never reached, which a reader should see).
 */

const STOPPED: Record<FuzzReport['stoppedBy'], string> = {
  sequences: 'its budget of sequences was spent',
  time: 'its time budget was spent',
  finding: 'it stopped at the first finding',
  interrupted: 'it was interrupted',
  aborted: 'the target failed',
};

const formatCount = (n: number): string => n.toLocaleString('en-US');

const plural = (n: number, one: string, many = `${one}s`): string => `${formatCount(n)} ${n === 1 ? one : many}`;

/** The verdict in one line. */
export function verdictLine(r: FuzzReport): string {
  const tried = `${plural(r.sequences, 'sequence')} (${plural(r.calls, 'call')}, ${plural(r.trials, 'trial')}) in ${formatMs(r.durationMs)}`;
  const why = STOPPED[r.stoppedBy];
  switch (r.verdict) {
    case 'failed':
      return `FAILED — ${plural(r.findings.length, 'finding')} in ${tried}; ${why}`;
    case 'passed':
      return `PASSED — no finding in ${tried}; ${why}`;
    case 'interrupted':
      return `INTERRUPTED — no finding in ${tried} before the interrupt`;
    case 'aborted':
      return `ABORTED — the target failed after ${tried}`;
    case 'inconclusive':
      return 'INCONCLUSIVE — nothing was tried';
  }
}

const objectText = (o: object): string =>
  Object.entries(o)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(', ');

/** One job of a sequence: how it was submitted and the calls made for it. */
export function jobLine(j: FuzzJob, i: number): string {
  const parts = [`job ${String(i + 1)} at ${String(j.at)} ms: ${j.op} {${objectText(j.input)}}`];
  if (j.policy) parts.push(`policy {${objectText(j.policy)}}`);
  if (j.webhook) parts.push('webhook');
  const calls = (j.actions ?? []).map((a) => `${a.op} at +${String(a.at)} ms`);
  return `${parts.join(' ')}${calls.length > 0 ? `; then ${calls.join(', ')}` : ''}`;
}

function shrinkText(f: FindingReport): string {
  const size = (s: { jobs: number; calls: number }): string => `${plural(s.jobs, 'job')}/${plural(s.calls, 'call')}`;
  if (!f.reproduced) return `not shrunk: running its trial again did not show it (a race); the trial's ${size(f.before)}`;
  return `shrunk from ${size(f.before)} to ${size(f.after)} in ${plural(f.shrinkRuns, 'run')}`;
}

/** A finding for the terminal: id, shrinking, its jobs, and the command that shows it again. */
export function findingLines(f: FindingReport, dir: string): string[] {
  return [
    `  ✗ ${f.id}: ${shrinkText(f)}`,
    ...f.jobs.map((j, i) => `      ${jobLine(j, i)}`),
    ...(f.examples[0] ? [`      ${f.examples[0].message}`] : []),
    `      reproduce: jobstorm run ${dir}/${f.files.scenario}`,
  ];
}

const edgeCells = (e: EdgeCount): string[] => [e.from, e.by, e.to, formatCount(e.count)];

function edgesMarkdown(t: EdgeTable): string[] {
  const reached = t.table.filter((row) => row.count > 0).length;
  const out = [
    `## What was tried`,
    '',
    `${String(reached)} of ${String(t.table.length)} transitions of the state machine (contracts/queue/states.ts) were seen:`,
    '',
    ...markdownTable(
      ['from', 'by', 'to', 'seen', 'condition'],
      t.table.map((row) => [row.from, row.by, row.to, formatCount(row.count), row.condition]),
      ['l', 'l', 'l', 'r', 'l'],
    ),
  ];
  const header = ['from', 'by', 'to', 'seen'];
  const align = ['l', 'l', 'l', 'r'] as const;
  if (t.jumps.length > 0)
    out.push('', 'Seen as jumps over several rows (between two reads):', '', ...markdownTable(header, t.jumps.map(edgeCells), align));
  if (t.outside.length > 0)
    out.push('', 'Seen outside the table (the checks judge these):', '', ...markdownTable(header, t.outside.map(edgeCells), align));
  const calls = Object.entries(t.calls).map(([call, n]) => [call, formatCount(n)]);
  out.push('', 'Calls, by operation and answer:', '', ...markdownTable(['call', 'count'], calls));
  return out;
}

/** The transition table for the terminal: every row with its count, then jumps and what lies outside. */
export function edgeLines(t: EdgeTable): string[] {
  const reached = t.table.filter((row) => row.count > 0).length;
  const rows = [
    ...t.table.map((row) => [row.from, row.by, row.to, formatCount(row.count)]),
    ...t.jumps.map((e) => [...edgeCells(e).slice(0, 3), `${formatCount(e.count)} (jump)`]),
    ...t.outside.map((e) => [...edgeCells(e).slice(0, 3), `${formatCount(e.count)} (outside the table)`]),
  ];
  return [
    `transitions seen: ${String(reached)} of ${String(t.table.length)}`,
    ...textTable(['from', 'by', 'to', 'seen'], rows).map((l) => `  ${l}`),
  ];
}

function findingMarkdown(f: FindingReport): string[] {
  const out = [
    `### ${f.id}`,
    '',
    f.description,
    '',
    `First in trial ${String(f.trial)} (its seed ${String(f.trialSeed)}); ${shrinkText(f)}; it fired ${plural(f.count, 'time')} in the smallest trial.`,
    '',
    ...f.jobs.map((j, i) => `${String(i + 1)}. ${jobLine(j, i).replace(/^job \d+ /, '')}`),
    '',
  ];
  for (const v of f.examples) {
    out.push(`- ${v.message}`);
    if (v.evidence.request) out.push(`  - ${v.evidence.request} → ${String(v.evidence.status ?? 'no answer')}`);
    const timeline = v.evidence.timeline?.map((e) => `${String(Math.round(e.at))} ms ${e.op} ${String(e.status ?? '')}`.trim());
    if (timeline?.length) out.push(`  - timeline: ${timeline.join(' → ')}`);
  }
  out.push('', `Reproduce: \`jobstorm run ${f.files.scenario}\` (the trace beside it: \`${f.files.trace}\`; records: \`${f.files.records}\`).`, '');
  return out;
}

export function renderFuzzMarkdown(r: FuzzReport): string {
  const out = [
    `# jobstorm fuzz: ${r.verdict}`,
    '',
    `**${verdictLine(r)}.**`,
    '',
    `Seed ${String(r.seed)} against ${r.target}${r.faults.length > 0 ? ` with faults ${r.faults.join(', ')}` : ''}; the same seed against the same faithful target tries the same sequences (\`--seed ${String(r.seed)}\`).`,
    ...(r.load ? ['', `Beside a background load, ${r.load.file}: ${formatCount(r.load.calls)} calls, not judged (they share the endpoint, so checks that need its queue to be the fuzz's alone did not judge).`] : []),
    '',
  ];
  if (r.findings.length > 0) out.push('## Findings', '', ...r.findings.flatMap(findingMarkdown));
  out.push(...edgesMarkdown(r.edges), '', '## Checks judged', '');
  const judged = Object.entries(r.judged).filter(([, n]) => n > 0);
  out.push(judged.length > 0 ? judged.map(([id, n]) => `${id} ${formatCount(n)}`).join(' · ') : 'none');
  return `${out.join('\n')}\n`;
}
