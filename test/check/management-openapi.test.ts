import { describe, expect, it } from 'vitest';
import type { OpenApiRules } from '../../src/check/openapi-rules.js';
import { ex, runRecord } from './records.js';
import { FoldedChecker } from '../helpers/folded.js';

/*
 * management.openapi judges the management answers against the user's document; a 5xx the
 * document does not declare is server.error's alone (one defect, one id), as for the queue
 * operations. The exact proof of server-errors on all-ops caught the overlap only when the
 * fault's random half happened to hit a management call; this pins it.
 */
const RULES: OpenApiRules = new Map([
  [
    'StartPod',
    {
      operationId: 'StartPod',
      responses: new Map([
        ['200', undefined],
        ['400', undefined],
      ]),
    },
  ],
]);

function fired(status: number, rules: OpenApiRules = RULES): string[] {
  const c = new FoldedChecker(runRecord(), { openapi: rules });
  c.add(ex('StartPod', 0, status, {}));
  return c
    .finish()
    .violations.map((g) => g.id)
    .sort();
}

describe('management.openapi and 5xx', () => {
  it('an undeclared 500 is server.error only', () => {
    expect(fired(500)).toEqual(['server.error']);
  });

  it('an undeclared 4xx or 2xx is management.openapi', () => {
    expect(fired(422)).toContain('management.openapi');
    expect(fired(202)).toContain('management.openapi');
  });

  it('a 5xx the document declares is judged by the document, not skipped', () => {
    const rules: OpenApiRules = new Map([
      ['StartPod', { operationId: 'StartPod', responses: new Map([['503', undefined]]) }],
    ]);
    expect(fired(503, rules)).toEqual(['server.error']);
    expect(fired(200, rules)).toContain('management.openapi');
  });
});
