import { describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { skipHelpCache } from '../../src/cli/cli.js';

/*
 * Issue 17, start-up cost: yargs renders a command's whole help before running it. skipHelpCache
 * reaches into yargs' internals to stop that; this pins it to the yargs installed, so an upgrade
 * that moves the internals fails here instead of quietly costing every start its 60-100 ms again.
 */
interface Internals {
  getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } };
}

async function helpCachedAfterCommand(skip: boolean): Promise<{ cached: boolean; ran: boolean }> {
  let ran = false;
  const parser = yargs(['go', 'x'])
    .exitProcess(false)
    .command(
      'go <what>',
      'a command with options to render',
      (y) =>
        y.positional('what', { type: 'string' }).option('many', { type: 'string', describe: 'an option' }),
      () => {
        ran = true;
      },
    );
  if (skip) skipHelpCache(parser);
  await parser.parseAsync();
  return {
    cached: (parser as unknown as Internals).getInternalMethods().getUsageInstance().hasCachedHelpMessage(),
    ran,
  };
}

describe('skipHelpCache', () => {
  it('the installed yargs renders the help of a command it runs, unless told not to', async () => {
    expect(await helpCachedAfterCommand(false)).toEqual({ cached: true, ran: true });
    expect(await helpCachedAfterCommand(true)).toEqual({ cached: false, ran: true });
  });
});
