import { describe, expect, it } from 'vitest';
import { ConfigError, type ConfigIssue } from '../../src/core/index.js';
import { loadScenario, parseScenario } from '../../src/scenario/index.js';

/* Issue 18: the openai and requests steps, their defaults and their errors with file:line. */

describe('openai and requests steps', () => {
  it('normalize with their defaults: chat/completions, not streamed', () => {
    const s = parseScenario(
      `
name: chat
phases: [{ count: 1 }]
flows:
  - name: chat
    steps:
      - openai: { body: { model: m, messages: [{ role: user, content: hi }] } }
      - openai: { path: completions, body: { model: m, prompt: "n {{iteration}}" }, stream: true }
      - openai: { path: models }
      - requests: {}
      - requests:
`,
      'chat.yaml',
      { env: {} },
    );
    expect(s.flows[0]?.steps).toEqual([
      {
        kind: 'openai',
        path: 'chat/completions',
        stream: false,
        conversation: false,
        body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      },
      {
        kind: 'openai',
        path: 'completions',
        stream: true,
        conversation: false,
        body: { model: 'm', prompt: 'n {{iteration}}' },
      },
      { kind: 'openai', path: 'models', stream: false, conversation: false },
      { kind: 'requests' },
      { kind: 'requests' },
    ]);
  });

  it('report every mistake at once, each at its line and column', async () => {
    const dir = 'test/scenario/fixtures';
    let issues: string[] = [];
    try {
      await loadScenario(`${dir}/broken-openai.yaml`, { env: {} });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      issues = (err as ConfigError).issues.map(
        (i: ConfigIssue) => `${i.where.replace(`${dir}/`, '')}  ${i.message}`,
      );
    }
    expect(issues).toEqual([
      'broken-openai.yaml:6:25  flows[0].steps[0].openai.path: expected one of chat/completions | completions | models, got "chat/complete" (did you mean "chat/completions"?)',
      'broken-openai.yaml:7:9  flows[0].steps[1].openai.body: openai path completions needs a body (at least model and prompt)',
      'broken-openai.yaml:8:41  flows[0].steps[2].openai.stream: openai path models is a GET: it takes no body and does not stream',
      'broken-openai.yaml:9:71  flows[0].steps[3].openai.body.messages[0].content: uses {{row.q}} but the scenario has no data feed (add data.file)',
      'broken-openai.yaml:9:97  flows[0].steps[3].openai.stream: expected true or false, got "yes"',
      'broken-openai.yaml:10:21  flows[0].steps[4].requests.limit: unknown key "limit"',
    ]);
  });
});
