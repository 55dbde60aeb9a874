import type { KeyPath } from './path-format.js';

/*
 * Fields whose value can be a credential. A configuration error describes such a value by its type
 * only, whatever the type: a key read from the environment is often all digits, and then it fails
 * a string field as a number. Matched by name at any depth, so a job input's `api_key` or
 * `authToken` counts as well as `s3Config.accessSecret`, and so does everything under such a field
 * (the whole `s3Config`, `headers`).
 */
const SECRET_NAME =
  /key|secret|token|passw(or)?d|passphrase|authori[sz]ation|credential|cookie|signature|^accessId$|^s3Config$|^headers?$/i;

export function holdsSecret(path: KeyPath): boolean {
  return path.some((segment) => typeof segment === 'string' && SECRET_NAME.test(segment));
}
