import { defineConfig } from '@playwright/test';

// `cargo xtask test` builds the server and the site, picks a free port and a fresh database,
// and passes them here. The defaults serve a manual `npx playwright test` after a build.
const port = Number(process.env.PORT ?? 8765);
const bin = process.env.TRACESCOPE_BIN ?? '../target/debug/tracescope';
const db = process.env.TRACESCOPE_DB ?? '../target/e2e/tracescope.db';
const site = process.env.TRACESCOPE_SITE ?? '../target/site';

export default defineConfig({
  testDir: './tests',
  // Benchmarks (tag @bench) run only under `cargo xtask frame-bench`.
  grep: process.env.TRACESCOPE_FRAME_BENCH ? /@bench/ : undefined,
  grepInvert: process.env.TRACESCOPE_FRAME_BENCH ? undefined : /@bench/,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: 1,
  reporter: 'list',
  timeout: 30_000,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    headless: true,
    launchOptions: {
      // Debian's Chromium: Playwright downloads no browser here.
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `"${bin}" serve --addr 127.0.0.1:${port} --db "${db}" --site "${site}"`,
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
