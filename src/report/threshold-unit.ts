/** The unit a threshold's value is measured in (milliseconds, a share, a count, per second). */
export type ThresholdUnit = 'ms' | 'ratio' | 'count' | 'rps';
