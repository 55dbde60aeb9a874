import { ReadCounter } from './fault.js';

/** /status reads of each job while a fault that turns every second read backwards applies to it. */
export const STATUS_READS = new ReadCounter();
