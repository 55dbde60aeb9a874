import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readSummary } from '../../report/summary-schema.js';
import { summaryPath } from '../../compare/run-input.js';
import { ConfigError, type ConfigIssue } from '../../core/config-error.js';
import { ExitCode } from '../../core/exit-code.js';
import { expiryMs } from '../../core/known-deviation.js';
import { entryLabel } from '../../report/known-lines.js';
import { knownFileText } from '../../report/known-file-text.js';
import { clockOf, type JobstormCommand } from '../command.js';
import type { KnownFileArgs } from './known-args.js';

/** What is wrong with `--expires` at `nowMs`: not a date, or past already (the entries would never match). */
function expiresIssue(expires: string, nowMs: number): string | undefined {
  const end = expiryMs(expires);
  if (end === undefined)
    return `expected a date (2026-03-31) or an instant with its offset (2026-03-31T18:00:00Z), got "${expires}"`;
  if (end <= nowMs)
    return `${expires} has passed already (it is ${new Date(nowMs).toISOString()}): the entries would never match`;
  return undefined;
}

/** `--why`, `--who` and `--expires` as an entry will carry them; every problem at once. */
function provenanceOf(args: KnownFileArgs, nowMs: number): { why: string; who: string; expires?: string } {
  const issues: ConfigIssue[] = [];
  const why = args.why.trim();
  const who = args.who.trim();
  if (why === '') issues.push({ where: '--why', message: 'say why the findings are accepted for now' });
  if (who === '') issues.push({ where: '--who', message: 'say who accepts them' });
  const expires = args.expires === undefined ? undefined : expiresIssue(args.expires, nowMs);
  if (expires !== undefined) issues.push({ where: '--expires', message: expires });
  if (issues.length > 0) throw new ConfigError(issues);
  return { why, who, ...(args.expires === undefined ? {} : { expires: args.expires }) };
}

/**
 * `jobstorm known <run>`: a known-deviations file that accepts the run's findings, keeping the
 * entries of the run's own known file that still matched and leaving out those that expired or
 * matched nothing (said on stderr).
 */
export const knownAction: Pick<JobstormCommand<KnownFileArgs>, 'run'> = {
  run: async (args, io) => {
    const provenance = provenanceOf(args, clockOf(io).epochNow());
    const file = await summaryPath(args.run ?? '.');
    const made = knownFileText(await readSummary(file), provenance);
    const out = args.out ?? join(dirname(file), 'known.yaml');
    await writeFile(out, made.text);
    io.out(
      `${out}: ${String(made.kept.length)} entries kept, ${String(made.added.length)} added for new findings`,
    );
    for (const d of made.dropped)
      io.err(
        `jobstorm: left out ${entryLabel(d)}: ${d.state === 'expired' ? `expired (${String(d.expires)})` : 'no longer seen in this run'}`,
      );
    if (made.kept.length + made.added.length === 0)
      io.err('jobstorm: warning: the run had no findings to accept: the file accepts nothing');
    return ExitCode.Ok;
  },
};
