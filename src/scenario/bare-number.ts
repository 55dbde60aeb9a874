/**
 * A duration or size written as a bare number (`10`, `"10"`). It used to be read in the smallest
 * unit, silently (`duration: 10` ran for 10 ms), so now it is an error that offers the readings the
 * author may have meant. Only 0 reads the same in every unit and may go without one.
 */
export const BARE_NUMBER = /^\d+(?:\.\d+)?$/;

/** One way to read a bare number: the unit to append and its name (`s`, `second`). */
export interface Reading {
  readonly suffix: string;
  readonly name: string;
}

function spelled(text: string, { suffix, name }: Reading): string {
  return `"${text}${suffix}" (${text} ${name}${Number(text) === 1 ? '' : 's'})`;
}

/** The message for a bare non-zero number, or undefined for anything else. */
export function bareNumberIssue(value: string | number, readings: readonly Reading[]): string | undefined {
  const text = String(value).trim();
  if (!BARE_NUMBER.test(text) || Number(text) === 0) return undefined;
  const options = readings.map((r) => spelled(text, r));
  const last = options.pop() ?? '';
  const choice = options.length > 0 ? `${options.join(', ')} or ${last}` : last;
  return `${text} has no unit: write ${choice}`;
}
