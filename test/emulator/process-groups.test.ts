import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessGroups } from '../../src/emulator/external/process-groups.js';
import { ProcessLauncher } from '../../src/emulator/external/process-launcher.js';

/*
 * A forced exit (a second Ctrl-C) closes the worker processes' groups before it kills them: the
 * emulator's thread, which would replace the killed workers, then starts no process that could
 * outlive jobstorm.
 */

describe('worker process groups on a forced exit', () => {
  it('close is seen from another view of the same memory (the emulator thread), and is no group', () => {
    const owner = new ProcessGroups();
    const emulatorThread = new ProcessGroups(owner.buffer);
    expect(owner.add(4242)).toBe(true);
    expect(emulatorThread.isClosed()).toBe(false);
    owner.close();
    expect(emulatorThread.isClosed()).toBe(true);
    expect(emulatorThread.live()).toEqual([4242]);
    emulatorThread.remove(4242);
    expect(owner.live()).toEqual([]);
  });

  it('a launcher starts no process once its groups are closed', () => {
    const groups = new ProcessGroups();
    const exits: string[] = [];
    const launcher = new ProcessLauncher(
      {
        command: 'sleep 30',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        logDir: mkdtempSync(join(tmpdir(), 'jobstorm-groups-')),
        stopGraceMs: 0,
      },
      {},
      (id) => exits.push(id),
      groups,
    );
    groups.close();
    launcher.start('worker-1');
    expect(launcher.processes()).toEqual([]);
    expect(groups.live()).toEqual([]);
  });
});
