import type { ThresholdSpec } from '../core/threshold-spec.js';
import type { ThresholdSource } from './threshold.js';

export type { ThresholdSpec };

/**
 * A scenario's thresholds as sources for `parseThresholds`, each named by its place in the file.
 * `live: false` drops abortOnFail (a capacity search judges each step's SLO itself).
 */
export function thresholdSources(
  specs: readonly ThresholdSpec[],
  file: string,
  options: { live?: boolean } = {},
): (ThresholdSource & { where: string })[] {
  return specs.map((spec, i) => {
    const where = `${file}: thresholds[${String(i)}]`;
    if (typeof spec === 'string') return { expression: spec, where };
    const { threshold, abortOnFail, ...rest } = spec;
    return {
      expression: threshold,
      where,
      ...rest,
      ...(abortOnFail === true && options.live !== false ? { abortOnFail } : {}),
    };
  });
}
