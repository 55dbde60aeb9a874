import { describe, expect, it } from 'vitest';
import { jsonSize, untrim } from '../../src/check/untrim.js';
import { trimBody } from '../../src/core/trim-body.js';

/* Bodies as the records keep them (long strings cut to a marker), read back for schemas and sizes. */

const cut = (s: string) => trimBody(s, 4);

describe('untrim', () => {
  it('puts each marker back as the head of its string, at any depth', () => {
    const long = 'a'.repeat(100);
    const body = trimBody({ id: 'j', output: { text: long, list: ['x', long] }, n: null }, 10);
    expect(untrim(body)).toEqual({
      id: 'j',
      output: { text: 'a'.repeat(64), list: ['x', 'a'.repeat(64)] },
      n: null,
    });
    expect(untrim(cut('abcdefgh'))).toBe('abcdefgh');
  });

  it('returns a body without markers as it is, not a copy', () => {
    const body = { id: 'j', output: { list: [1, 'x', { y: null }] } };
    expect(untrim(body)).toBe(body);
    const list = [{ a: 1 }, 2];
    expect(untrim(list)).toBe(list);
    expect(untrim('s')).toBe('s');
    expect(untrim(null)).toBe(null);
  });

  it('copies only what holds a marker, and leaves the record unchanged', () => {
    const kept = { k: 1 };
    const body = { kept, list: [kept, cut('abcdefgh')], text: cut('abcdefgh') };
    const out = untrim(body) as typeof body;
    expect(out).not.toBe(body);
    expect(out.kept).toBe(kept);
    expect(out.list).toEqual([kept, 'abcdefgh']);
    expect(out.list[0]).toBe(kept);
    expect(body.text).toEqual(cut('abcdefgh'));
    expect(body.list[1]).toEqual(cut('abcdefgh'));
  });

  it('reads own keys only', () => {
    const proto = { inherited: cut('abcdefgh') };
    const body = Object.create(proto) as Record<string, unknown>;
    body.own = 1;
    expect(untrim(body)).toBe(body);
  });
});

describe('jsonSize', () => {
  it('is the JSON length of a value, with one comma more per container that holds anything', () => {
    const sizes: [unknown, number][] = [
      [1, 1],
      ['abc', 5],
      [null, 4],
      [true, 4],
      [[], 2],
      [{}, 2],
      [[1, 'x'], '[1,"x"]'.length + 1],
      [{ a: 1, bc: 'd' }, '{"a":1,"bc":"d"}'.length + 1],
      [{ e: { f: [null] } }, '{"e":{"f":[null]}}'.length + 3],
    ];
    for (const [v, n] of sizes) expect(jsonSize(v), JSON.stringify(v)).toBe(n);
  });

  it('counts a cut string at its full length, quotes included, and undefined as nothing', () => {
    expect(jsonSize(cut('abcdefghij'))).toBe(12);
    expect(jsonSize(undefined)).toBe(0);
    expect(jsonSize({ s: cut('abcdefghij') })).toBe(2 + 1 + 4 + 12);
  });
});
