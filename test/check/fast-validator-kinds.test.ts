import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastValidator } from '../../src/check/fast-validator.js';

/*
 * Which schemas get a fast validator, node kind by node kind: those it cannot answer for exactly
 * get none (zod decides every body), and those it compiles say yes to what zod accepts.
 */

/** A shape whose own key `__proto__` holds a schema (JSON.parse makes such a key own). */
function protoShape(): Record<string, z.ZodType> {
  const shape = JSON.parse('{"__proto__": 0}') as Record<string, z.ZodType>;
  shape['__proto__'] = z.string();
  return shape;
}

/** The validator's answers on `values`, beside zod's. */
function answers(schema: z.ZodType, values: unknown[]): [boolean | undefined, boolean][] {
  const fast = fastValidator(schema);
  return values.map((v) => [fast?.(v), schema.safeParse(v).success]);
}

describe('fast validator kinds', () => {
  it('compiles a schema once', () => {
    const schema = z.object({ a: z.number() });
    expect(fastValidator(schema)).toBe(fastValidator(schema));
    const unknown = z.string().transform((s) => s.length);
    expect(fastValidator(unknown)).toBeUndefined();
    expect(fastValidator(unknown)).toBeUndefined();
  });

  it('leaves to zod what it cannot answer for exactly', () => {
    const none: [string, z.ZodType][] = [
      ['coerced', z.coerce.number()],
      ['exclusive union', z.xor([z.string(), z.number()])],
      ['symbol key', z.object({ [Symbol('s')]: z.string() })],
      ['catchall of strings', z.object({ a: z.number() }).catchall(z.string())],
      ['catchall with checks', z.looseObject({ a: z.number() }).catchall(z.unknown().refine((v) => v !== 1))],
      ['record with key checks', z.record(z.string().min(2), z.number())],
      ['record with a key pattern', z.record(z.string().regex(/^a/), z.number())],
      ['record of numbers as keys', z.record(z.enum(['a', 'b']), z.number())],
      ['loose record', z.looseRecord(z.string(), z.number())],
      [
        'optional with checks',
        z
          .string()
          .optional()
          .refine((v) => v !== 'x'),
      ],
      ['optional of a default', z.object({ a: z.string().default('x').optional() })],
      [
        'nullable of a transform',
        z
          .string()
          .transform((s) => s.length)
          .nullable(),
      ],
      ['array of a transform', z.array(z.string().transform((s) => s.length))],
      ['object with a transformed field', z.object({ a: z.string().transform((s) => s.length) })],
      [
        'record of a transform',
        z.record(
          z.string(),
          z.string().transform((s) => s.length),
        ),
      ],
      [
        'union of transforms only',
        z.union([z.string().transform((s) => s.length), z.number().transform(String)]),
      ],
      [
        'optional of a transform',
        z
          .string()
          .transform((s) => s.length)
          .optional(),
      ],
      ['record with format keys', z.record(z.email(), z.number())],
      ['__proto__ key', z.object(protoShape())],
    ];
    for (const [name, schema] of none) expect(fastValidator(schema), name).toBeUndefined();
  });

  it('takes a union by the options it can compile, and asks zod when none says yes', () => {
    const schema = z.union([z.string().transform((s) => s.length), z.number()]);
    expect(answers(schema, [1, 'a', null])).toEqual([
      [true, true],
      [false, true],
      [false, false],
    ]);
  });

  it('compares one string or boolean literal by equality, anything else by its set', () => {
    expect(answers(z.literal('a'), ['a', 'b'])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(answers(z.literal(false), [false, true, 0])).toEqual([
      [true, true],
      [false, false],
      [false, false],
    ]);
    expect(answers(z.literal(2), [2, 3, '2'])).toEqual([
      [true, true],
      [false, false],
      [false, false],
    ]);
    expect(answers(z.literal(['a', 2]), ['a', 2, 'b'])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
  });

  it('compares a single literal of another kind by its set, a bigint too', () => {
    expect(answers(z.literal(2n), [2n, 2])).toEqual([
      [true, true],
      [false, false],
    ]);
  });

  it('skips a refinement its `when` leaves out, as zod does', () => {
    const schema = z.string().refine((v) => v.length > 5, { when: () => false });
    expect(answers(schema, ['ab'])).toEqual([[true, true]]);
  });

  it("inlines only the safe-integer format: a 32-bit one is zod's", () => {
    expect(answers(z.int32(), [5, 2 ** 40, 1.5])).toEqual([
      [true, true],
      [false, false],
      [false, false],
    ]);
  });

  it('holds bounds on both sides, inclusive or not', () => {
    const values = [0, 0.5, 1, 9, 10, 11];
    expect(answers(z.number().min(1).max(10), values).map(([f]) => f)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(answers(z.number().gt(1).lt(10), values).map(([f]) => f)).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
    expect(answers(z.int(), [1, 1.5, 2 ** 53]).map(([f]) => f)).toEqual([true, false, false]);
  });

  it('says yes to a string long enough in code units either way, and asks zod near the edge', () => {
    expect(answers(z.string().min(2), ['abcd', 'ab', 'a']).map(([f]) => f)).toEqual([true, true, false]);
    expect(answers(z.string().max(2), ['ab', 'abc']).map(([f]) => f)).toEqual([true, false]);
    expect(answers(z.array(z.number()).min(1).max(2), [[1], [], [1, 2, 3]]).map(([f]) => f)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('wants a required key present, even for unknown, and lets an optional one be absent', () => {
    const schema = z.object({ a: z.unknown(), b: z.string().optional() });
    expect(answers(schema, [{ a: undefined }, {}, { a: 1, b: 2 }, { a: 1, b: 'x', c: 3 }, [], null])).toEqual(
      [
        [true, true],
        [false, false],
        [false, false],
        [true, true],
        [false, false],
        [false, false],
      ],
    );
  });

  it('refuses other keys on a strict object, and takes them on a loose one', () => {
    expect(answers(z.strictObject({ a: z.number() }), [{ a: 1 }, { a: 1, b: 2 }])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(answers(z.looseObject({ a: z.number() }), [{ a: 1, b: 2 }])).toEqual([[true, true]]);
  });

  it('reads a record as a plain object of string keys, values held to their schema', () => {
    const schema = z.record(z.string(), z.number());
    expect(
      answers(schema, [{ a: 1 }, { a: 'x' }, [], new Map(), { [Symbol('s')]: 1 }]).map(([f]) => f),
    ).toEqual([true, false, false, false, false]);
  });

  it('runs a nullable and an optional inner schema only on a value', () => {
    const schema = z.object({ a: z.number().nullable(), b: z.number().optional() });
    expect(
      answers(schema, [{ a: null }, { a: 1, b: 2 }, { a: 'x' }, { a: null, b: 'x' }]).map(([f]) => f),
    ).toEqual([true, true, false, false]);
  });
});
