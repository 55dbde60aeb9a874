import { describe, expect, it } from 'vitest';
import { split } from '../../bench/perf-split.js';

/** A `perf script` excerpt: three samples of the main thread, one of a GC helper thread. */
const PERF = `node  5235   259.624458:    1001001 cpu-clock:pppH: 
	         152b03c Builtins_MapPrototypeSet+0x47c (/usr/bin/node)
	    7f24881f30bf JS:*answered file:///work/main/dist/src/check/book-records.js:50:18+0x4ff (/tmp/perf-5235.map)
	    7f24881acf2a JS:*add file:///work/main/dist/src/check/checker.js:97:8+0x6aa (/tmp/perf-5235.map)
	          7bb11b node::InternalMakeCallback+0x25b (/usr/bin/node)

node  5235   259.625458:    1001001 cpu-clock:pppH: 
	ffffffff8a1b2c3d _raw_spin_unlock_irqrestore+0x1d ([kernel.kallsyms])
	ffffffff8a1b2c3e do_writev+0x1d ([kernel.kallsyms])
	    7f2488200000 JS:*writeH1 /work/main/node_modules/undici/lib/dispatcher/client-h1.js:1144:18+0x10 (/tmp/perf-5235.map)
	    7f24881acf2a JS:*exchange file:///work/main/dist/src/client/transport.js:131:19+0x6a (/tmp/perf-5235.map)

node  5235   259.626458:    1001001 cpu-clock:pppH: 
	ffffffff8a1b2c3d finish_task_switch+0x1d ([kernel.kallsyms])

node  5237   259.627458:    1001001 cpu-clock:pppH: 
	         1f9b077 v8::internal::Scavenger::ScavengeObject+0x307 (/usr/bin/node)
	          932ce1 node::(anonymous namespace)::PlatformWorkerThread+0x191 (/usr/bin/node)
`;

describe('bench/perf-split', () => {
  it('gives each sample to the first part some frame of its stack matches, the rest by its leaf', () => {
    const { total, mainShare, parts } = split(PERF);
    expect(total).toBe(4);
    expect(mainShare).toBe(0.75);
    // The checks come first: a sample under the checker is theirs, wherever its leaf is.
    expect(parts.get('jobstorm checks')).toBe(1);
    // undici's write wins over the client that called it.
    expect(parts.get('undici write')).toBe(1);
    expect(parts.get('jobstorm client')).toBeUndefined();
    expect(parts.get('kernel, other')).toBe(1);
    expect(parts.get('garbage collector')).toBe(1);
  });
});
