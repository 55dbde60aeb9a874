// tsc writes dist/ with the default file mode; `npx jobstorm` runs the bin directly, so it must be
// executable on a fresh clone.
import { chmodSync } from 'node:fs';
import { URL } from 'node:url';

chmodSync(new URL('../dist/cli/main.js', import.meta.url), 0o755);
