import { z } from 'zod';
import { describeValue } from './value-description.js';
import { didYouMean } from './suggestion.js';

/**
 * Zod's default messages ("Invalid input: expected number, received string") talk about types;
 * a scenario author wants to read what to write instead. This error map is passed to every parse,
 * so schema-level messages (durations, sizes) still win.
 */

/** Marks an unknown-keys message whose body is JSON, so each key can be located on its own line. */
export const UNKNOWN_KEYS_MARK = '\u0000unknown-keys:';

export interface UnknownKeys {
  keys: string[];
  known: string[];
}

const EXPECTED: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  null: 'nothing',
};

function expectedName(expected: string): string {
  return EXPECTED[expected] ?? expected;
}

function plural(n: number | bigint, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function tooSmall(iss: z.core.$ZodRawIssue<z.core.$ZodIssueTooSmall>): string {
  if (iss.origin === 'array')
    return `needs at least ${plural(iss.minimum, 'entry').replace('entrys', 'entries')}`;
  if (iss.origin === 'string') return 'must not be empty';
  const bound = iss.inclusive === false ? 'greater than' : 'at least';
  return `must be ${bound} ${iss.minimum}, got ${describeValue(iss.input)}`;
}

function tooBig(iss: z.core.$ZodRawIssue<z.core.$ZodIssueTooBig>): string {
  if (iss.origin === 'array')
    return `takes at most ${plural(iss.maximum, 'entry').replace('entrys', 'entries')}`;
  if (iss.origin === 'string') return `must be at most ${plural(iss.maximum, 'character')}`;
  const bound = iss.inclusive === false ? 'less than' : 'at most';
  return `must be ${bound} ${iss.maximum}, got ${describeValue(iss.input)}`;
}

function invalidValue(iss: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidValue>): string {
  const allowed = iss.values.map((v) => (typeof v === 'string' ? v : String(v)));
  const got = describeValue(iss.input);
  const hint = typeof iss.input === 'string' ? didYouMean(iss.input, allowed) : '';
  return `expected one of ${allowed.join(' | ')}, got ${got}${hint}`;
}

function unknownKeys(iss: z.core.$ZodRawIssue<z.core.$ZodIssueUnrecognizedKeys>): string {
  const known = iss.inst instanceof z.ZodObject ? Object.keys(iss.inst.shape) : [];
  const body: UnknownKeys = { keys: iss.keys, known };
  return UNKNOWN_KEYS_MARK + JSON.stringify(body);
}

export function decodeUnknownKeys(message: string): UnknownKeys | undefined {
  if (!message.startsWith(UNKNOWN_KEYS_MARK)) return undefined;
  return JSON.parse(message.slice(UNKNOWN_KEYS_MARK.length)) as UnknownKeys;
}

export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const list = known.length > 0 ? `; known keys: ${known.join(', ')}` : '';
  const hint = didYouMean(key, known);
  return hint === '' ? `unknown key "${key}"${list}` : `unknown key "${key}"${hint}`;
}

export const scenarioErrorMap: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      return iss.input === undefined
        ? `missing (expected ${expectedName(iss.expected)})`
        : `expected ${expectedName(iss.expected)}, got ${describeValue(iss.input)}`;
    case 'too_small':
      return tooSmall(iss);
    case 'too_big':
      return tooBig(iss);
    case 'invalid_value':
      return invalidValue(iss);
    case 'unrecognized_keys':
      return unknownKeys(iss);
    case 'invalid_union':
      return `does not match any accepted form, got ${describeValue(iss.input)}`;
    case 'invalid_format':
      return `expected ${iss.format === 'regex' ? 'a value matching the pattern' : `a valid ${iss.format}`}, got ${describeValue(iss.input)}`;
    default:
      return undefined;
  }
};
