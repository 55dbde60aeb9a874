import { describe, expect, it } from 'vitest';
import { OutputTally, streamOutput } from '../../src/client/output-reading.js';

/* Issue 48: what a streamed answer's output counts as, in each shape LLM workers send. */

describe('the output of a /stream read', () => {
  it("counts the vLLM worker's token lists as tokens and keeps its cumulative usage", () => {
    const body = {
      status: 'IN_PROGRESS',
      stream: [
        { output: { choices: [{ tokens: ['a ', 'b ', 'c '] }], usage: { input: 9, output: 4 } } },
        { output: { choices: [{ tokens: ['d ', 'e '] }], usage: { input: 9, output: 6 } } },
      ],
    };
    expect(streamOutput(body, 120)).toEqual({ unit: 'tokens', arrivals: [[120, 5]], usageTokens: 6 });
  });

  it('counts OpenAI events a chunk carries as raw SSE text, or parsed, one delta each', () => {
    const raw =
      'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"delta":{"content":" there"}}]}\n\ndata: [DONE]\n\n';
    expect(streamOutput([raw], 50)).toEqual({ unit: 'chunks', arrivals: [[50, 2]] });
    const parsed = [
      { choices: [{ delta: { content: 'x' } }] },
      { choices: [], usage: { completion_tokens: 7 } },
    ];
    expect(streamOutput({ stream: [{ output: parsed }] }, 60)).toEqual({
      unit: 'chunks',
      arrivals: [[60, 1]],
      usageTokens: 7,
    });
  });

  it('counts any other chunk as one chunk, and a read with none as no output', () => {
    expect(streamOutput({ stream: [{ output: { text: 'x' } }, { output: 'y' }] }, 10)).toEqual({
      unit: 'chunks',
      arrivals: [[10, 2]],
    });
    expect(streamOutput({ status: 'COMPLETED', stream: [] }, 10)).toBeUndefined();
    expect(streamOutput(undefined, 10)).toBeUndefined();
  });
});

describe('the output of an OpenAI stream', () => {
  const delta = (content: string, usage?: number): unknown => ({
    choices: [{ delta: { content } }],
    ...(usage === undefined ? {} : { usage: { completion_tokens: usage } }),
  });

  it('makes events read together one arrival, and a final usage the total', () => {
    const t = new OutputTally();
    t.event({ choices: [{ delta: { role: 'assistant', content: '' } }] }, 5);
    t.event(delta('a'), 10);
    t.event(delta('b'), 10);
    t.event(delta('c'), 30);
    t.event({ choices: [], usage: { completion_tokens: 3 } }, 31);
    expect(t.facts()).toEqual({
      unit: 'chunks',
      arrivals: [
        [10, 2],
        [30, 1],
      ],
      usageTokens: 3,
    });
  });

  it("counts tokens by vLLM's continuous usage when every text event carries it", () => {
    const t = new OutputTally();
    t.event(delta('ab', 2), 10);
    t.event(delta('cde', 5), 20);
    expect(t.facts()).toEqual({
      unit: 'tokens',
      arrivals: [
        [10, 2],
        [20, 3],
      ],
      usageTokens: 5,
    });
  });

  it('is no output when no text came', () => {
    const t = new OutputTally();
    t.event({ choices: [], usage: { completion_tokens: 0 } }, 1);
    expect(t.facts()).toBeUndefined();
  });
});
