/**
 * What must still happen when the user insists on quitting (a second Ctrl-C): flush records and
 * write what reports can be written quickly. main.ts runs these, synchronously, before it exits.
 */
const hooks = new Set<() => void>();

/** Registers a hook; returns the function that removes it (call it once the run ended normally). */
export function onForcedExit(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Runs every hook once; a hook that throws does not stop the others. Returns the errors. */
export function runForcedExitHooks(): unknown[] {
  const errors: unknown[] = [];
  for (const hook of [...hooks]) {
    hooks.delete(hook);
    try {
      hook();
    } catch (err) {
      errors.push(err);
    }
  }
  return errors;
}
