import type { RunOutcome, Target } from '../runner/run-options.js';
import { RunSession } from './run-session.js';
import type { RunSessionOptions } from './session-options.js';

/*
 * One run, assembled the same way by every owner: the CLI's `run`, each capacity step,
 * `runJobstorm`, and (through the session) the shard threads of `--workers`. Four copies of this
 * wiring had drifted (issue 46).
 *
 * Reaching the target is injected (`reach`), not done here: the embedded emulator and the user's
 * worker processes belong to emulator/ and the CLI, which session/ may not import (DESIGN "Layout"),
 * and a capacity step runs against a target its search reached once for all its steps. What
 * reaches it for the CLI and the library is library/run-target.ts; what only the CLI knows (the
 * process, the console, the out folder, the environment) it passes in through there and through
 * the session's sinks, never read here.
 */

/** Where the run goes, once reached, and what to close when it is over. */
export interface ReachedTarget {
  target: Target;
  /** Stops what reaching the target started (the embedded emulator, the worker-process guard). */
  close(): Promise<void>;
}

export interface RunAssemblyOptions<R extends ReachedTarget> {
  /** Validates a remote target or starts the embedded emulator; runs first. */
  reach(): Promise<R>;
  /** The session's options for the reached target (started here, after `reach`: live exports). */
  session(reached: R): Omit<RunSessionOptions, 'target'>;
}

export interface AssembledRun<R extends ReachedTarget> {
  reached: R;
  session: RunSession;
  /** Runs the session, then closes what reaching the target started, even when the run threw. */
  run: () => Promise<RunOutcome>;
}

/** A target its owner already reached and closes itself (a capacity search's, for each step). */
export function reachedAlready(target: Target): ReachedTarget {
  return { target, close: () => Promise.resolve() };
}

/** Reaches the target and builds the session on it; closes the target when the session cannot be built. */
export async function assembleRun<R extends ReachedTarget>(
  o: RunAssemblyOptions<R>,
): Promise<AssembledRun<R>> {
  const reached = await o.reach();
  let session: RunSession;
  try {
    session = new RunSession({ ...o.session(reached), target: reached.target });
  } catch (err) {
    await reached.close();
    throw err;
  }
  return {
    reached,
    session,
    run: async () => {
      try {
        return await session.run();
      } finally {
        await reached.close();
      }
    },
  };
}
