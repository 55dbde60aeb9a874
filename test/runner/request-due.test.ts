import { describe, expect, it } from 'vitest';
import { RequestDue } from '../../src/runner/request-due.js';

/*
 * Issue 47 item 2: when an iteration's next request is due, as a table. `now` is when the step
 * gets to the event; a wait's return is when the next request is due.
 */
describe('when the next request of an iteration is due', () => {
  it('the first at the arrival, each later one when the step gets to it after a request', () => {
    const due = new RequestDue(100);
    expect(due.take(130)).toBe(100);
    expect(due.take(170)).toBe(170);
  });

  it('after a wait, at its scheduled end, however late the step gets to the request', () => {
    const due = new RequestDue(0);
    due.take(0);
    expect(due.waitUntil(500, 40)).toBe(500);
    expect(due.take(530)).toBe(500);
  });

  it('a wait that ran out before the step got to it is none', () => {
    const due = new RequestDue(0);
    due.take(0);
    expect(due.waitUntil(10, 40)).toBe(40);
    expect(due.take(40)).toBe(40);
  });

  it('a wait begins when it was due to begin: at the arrival, or where the wait before it ended', () => {
    const due = new RequestDue(0);
    expect(due.waitFor(100, 50)).toBe(100);
    expect(due.waitFor(200, 130)).toBe(300);
    expect(due.waitUntil(250, 330)).toBe(300);
    expect(due.take(330)).toBe(300);
  });

  it('after work that is not a request, the next request is due when the step gets to it', () => {
    const due = new RequestDue(0);
    due.waitFor(100, 0);
    due.dropPlan();
    expect(due.take(160)).toBe(160);
  });
});
