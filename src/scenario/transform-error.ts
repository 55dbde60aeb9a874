import { extname, resolve } from 'node:path';
import type { ConfigIssue } from '../core/index.js';

// esbuild (inside tsx) reports "Transform failed with N errors:" and then one line per error:
// "/abs/file.ts:3:12: ERROR: Expected identifier but found ","" with a 0-based column.
const ERROR_LINE = /^(.+):(\d+):(\d+): ERROR: (.+)$/;

function withoutExtension(path: string): string {
  return path.slice(0, path.length - extname(path).length);
}

/**
 * The located syntax errors in a TypeScript transform failure, or nothing if the message is not
 * one. tsx names an `.mts`/`.cts` file with a `.ts` extension in the message, so the scenario
 * file itself is matched without its extension and shown as the user wrote it.
 */
export function transformIssues(message: string, file: string, shown: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const line of message.split('\n')) {
    const match = ERROR_LINE.exec(line.trim());
    if (match === null) continue;
    const [, path = '', row = '', column = '', text = ''] = match;
    const where = withoutExtension(resolve(path)) === withoutExtension(file) ? shown : path;
    issues.push({ where: `${where}:${row}:${Number(column) + 1}`, message: `TypeScript: ${text}` });
  }
  return issues;
}
