/**
 * Is hdr-histogram-js's WebAssembly mode worth it? Times recording 2 M values and one encode in
 * JS and WASM mode with our configuration (1 µs – 1 h, 3 digits).   npx tsx bench/metrics-recording.ts
 */
import * as hdr from 'hdr-histogram-js';

const N = 2_000_000;
const config = {
  lowestDiscernibleValue: 1,
  highestTrackableValue: 3_600_000_000,
  numberOfSignificantValueDigits: 3 as const,
  autoResize: false,
};

function time(label: string, h: hdr.Histogram): void {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) h.recordValue(1 + ((i * 7919) % 5_000_000));
  const t1 = performance.now();
  const encoded = hdr.encodeIntoCompressedBase64(h);
  const t2 = performance.now();
  console.log(
    `${label.padEnd(6)} record ${N.toLocaleString('en')}: ${Math.round(t1 - t0)} ms (${Math.round(((t1 - t0) * 1e6) / N)} ns/value)  encode: ${Math.round(t2 - t1)} ms, ${encoded.length} chars`,
  );
  h.destroy();
}

time('js', hdr.build({ ...config, bitBucketSize: 32 }));
await hdr.initWebAssembly();
time('wasm', hdr.build({ ...config, useWebAssembly: true }));
