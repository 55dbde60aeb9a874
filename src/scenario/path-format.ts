export type KeyPath = readonly (string | number)[];

/** `phases[1].ramp.to`: how a user would name the key. */
export function formatPath(path: KeyPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** An issue before it is located in a file: a key path and what is wrong there. */
export interface PathIssue {
  readonly path: KeyPath;
  readonly message: string;
  /** Point at the key itself rather than its value (unknown keys). */
  readonly atKey?: boolean;
}
