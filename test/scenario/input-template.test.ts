import { describe, expect, it } from 'vitest';
import { compileInput, inspectInput, renderInput, type TemplateContext } from '../../src/scenario/index.js';

const ctx: TemplateContext = {
  row: { user: 'alice', n: 7, tags: ['a'] },
  iteration: 41,
  flow: 'submit',
  random: () => 0.5,
};

describe('renderInput', () => {
  it.each<[string, unknown, unknown]>([
    ['plain values pass through', { a: 1, b: 'x', c: [true, null] }, { a: 1, b: 'x', c: [true, null] }],
    ['row fields inside text', { text: 'hi {{row.user}}!' }, { text: 'hi alice!' }],
    [
      'a whole-string placeholder keeps the type',
      { n: '{{row.n}}', tags: '{{row.tags}}', i: '{{iteration}}' },
      { n: 7, tags: ['a'], i: 41 },
    ],
    ['several placeholders in one string', { id: '{{flow}}-{{iteration}}-{{row.n}}' }, { id: 'submit-41-7' }],
    ['objects in text are JSON', { t: 'tags={{row.tags}}' }, { t: 'tags=["a"]' }],
    ['spaces inside the braces', { t: '{{ flow }}' }, { t: 'submit' }],
    [
      'missing row fields render empty',
      { t: '[{{row.none}}]', whole: '{{row.none}}' },
      { t: '[]', whole: '' },
    ],
    ['integer random, inclusive bounds', { r: '{{random:1:10}}' }, { r: 6 }],
    ['fractional random', { r: '{{random:0:1.5}}' }, { r: 0.75 }],
    ['negative random', { r: '{{random:-10:-2}}' }, { r: -6 }],
    ['nested objects and arrays', { a: { b: ['x{{iteration}}', 2] } }, { a: { b: ['x41', 2] } }],
  ])('%s', (_name, template, out) => {
    expect(renderInput(template as Record<string, unknown>, ctx)).toEqual(out);
  });

  it('keeps random within its bounds over the whole [0, 1) range', () => {
    const lo = renderInput({ r: '{{random:1:10}}' }, { ...ctx, random: () => 0 });
    const hi = renderInput({ r: '{{random:1:10}}' }, { ...ctx, random: () => 0.999999 });
    expect([lo.r, hi.r]).toEqual([1, 10]);
  });

  it('returns constant subtrees as the same objects instead of copying them', () => {
    const shared = { big: [1, 2, 3] };
    const template = { shared, id: '{{iteration}}' };
    const a = renderInput(template, ctx);
    const b = renderInput(template, { ...ctx, iteration: 2 });
    expect(a.shared).toBe(shared);
    expect(b).toEqual({ shared, id: 2 });
    const constant = { x: 1 };
    expect(renderInput(constant, ctx)).toBe(constant);
  });

  it('refuses unknown placeholders when compiling', () => {
    expect(() => compileInput({ a: { b: '{{nope}}' } })).toThrow('input.a.b: unknown placeholder {{nope}}');
  });

  it('reports problems and row-field uses with their paths for validation', () => {
    expect(inspectInput({ a: '{{row.x}}', b: ['{{random:5:1}}'], c: 'ok {{row.y}} {{bad}}' })).toEqual({
      problems: [
        { path: ['b', 0], message: '{{random:5:1}}: min is greater than max' },
        {
          path: ['c'],
          message:
            'unknown placeholder {{bad}}; use {{row.field}}, {{trace.inputTokens}}, {{trace.outputTokens}}, {{trace.prompt}}, {{iteration}}, {{flow}}, {{random:min:max}}, {{length:<distribution>}}, {{text:<distribution>}}, {{length:row.field}} or {{text:row.field}}',
        },
      ],
      rowUses: [
        { field: 'x', path: ['a'] },
        { field: 'y', path: ['c'] },
      ],
      traceUses: [],
    });
    expect(compileInput({ a: '{{row.x}} {{row.x}}', b: '{{row.z}}' }).rowFields).toEqual(['x', 'z']);
  });
});
