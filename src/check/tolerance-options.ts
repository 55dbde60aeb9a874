import { ConfigError, type ConfigIssue } from '../core/config-error.js';
import { DEFAULT_TOLERANCES, TolerancesSchema, type Tolerances } from './tolerances.js';

/** Parses `--tolerance name=value` flags (all problems at once) into tolerances over the defaults. */
export function parseTolerances(flags: readonly string[]): Partial<Tolerances> {
  const issues: ConfigIssue[] = [];
  const raw: Record<string, number> = {};
  const known = Object.keys(DEFAULT_TOLERANCES);
  for (const flag of flags) {
    const m = /^([A-Za-z]+)=(.+)$/.exec(flag.trim());
    const value = m ? Number(m[2]) : NaN;
    if (!m?.[1] || !known.includes(m[1])) {
      issues.push({
        where: '--tolerance',
        message: `"${flag}": expected name=value with a name among ${known.join(', ')}`,
      });
    } else if (!Number.isFinite(value)) {
      issues.push({ where: '--tolerance', message: `"${flag}": the value must be a number` });
    } else {
      raw[m[1]] = value;
    }
  }
  const parsed = TolerancesSchema.partial().safeParse(raw);
  if (!parsed.success)
    for (const i of parsed.error.issues)
      issues.push({ where: '--tolerance', message: `${i.path.join('.')}: ${i.message}` });
  if (issues.length > 0) throw new ConfigError(issues);
  // Only what was given: the checker lays it over the defaults.
  return raw;
}

/** The tolerance table of the README: every option, its default and what it allows. */
export function tolerancesMarkdown(): string {
  const rows = Object.entries(TolerancesSchema.shape).map(
    ([name, schema]) =>
      `| \`${name}\` | ${String(DEFAULT_TOLERANCES[name as keyof Tolerances])} | ${schema.description ?? ''} |`,
  );
  return ['| tolerance | default | what it allows |', '| --- | --- | --- |', ...rows].join('\n');
}
