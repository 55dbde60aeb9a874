// tsc and esbuild write dist/ with the default file mode; `npx jobstorm` runs the bin directly, so
// it must be executable on a fresh clone. The bin is the bundle (dist/cli/main.js); tsc's entry
// (dist/src/cli/main.js), the bin of earlier versions, stays runnable too: npx keeps, per checkout,
// a link to the bin path it first saw, and an upgraded checkout must not answer "Permission denied".
import { chmodSync } from 'node:fs';
import { URL } from 'node:url';

for (const bin of ['../dist/cli/main.js', '../dist/src/cli/main.js'])
  chmodSync(new URL(bin, import.meta.url), 0o755);
