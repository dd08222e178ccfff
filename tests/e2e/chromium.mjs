// Which browser the browser tests and tests/e2e/frames.mjs drive: Debian's
// chromium-headless-shell (Chromium without the windows' own user
// interface, which run.sh installs) when it is there, else the whole of
// Chromium; CHROMIUM names another. The same engine draws the pages; the
// shell spent about a third less time on the same test files (docs/web.md,
// "Tests in a real browser").
import fs from 'node:fs';

const SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM_BIN = process.env.CHROMIUM || (fs.existsSync(SHELL) ? SHELL : '/usr/bin/chromium');
