import { globToRegExp } from '../core/check-glob.js';
import { closestName } from './closest-name.js';

/**
 * What is wrong with a check id or glob as a user wrote it (a threshold's `violation:…`, a skipped
 * check, a known deviation's `check`), or undefined: one that names no check would count, skip or
 * accept nothing forever, so it is a configuration error with the nearest id. `prefix` is how the
 * pattern was written before the id (`violation:`), so the hint reads as the user would write it.
 */
export function checkPatternIssue(pattern: string, ids: readonly string[], prefix = ''): string | undefined {
  if (!/^[\w.*-]+$/.test(pattern))
    return `"${prefix}${pattern}" is not a check id or glob (letters, digits, ".", "-", "_" and "*")`;
  const re = globToRegExp(pattern);
  if (ids.some((id) => re.test(id))) return undefined;
  const literal = pattern.replace(/\*/g, '');
  const hint = closestName(pattern.includes('*') ? literal : pattern, ids);
  const family = pattern.includes('*')
    ? closestName(pattern.split('.')[0] ?? '', [...new Set(ids.map((id) => id.split('.')[0] ?? ''))])
    : undefined;
  const suggestion = family ? `${family}.*` : hint;
  return `"${prefix}${pattern}" matches no check id${suggestion ? `; did you mean "${prefix}${suggestion}"?` : ''} (docs/reference/checks.md lists the ids)`;
}
