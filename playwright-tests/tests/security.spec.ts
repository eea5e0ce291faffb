import { expect, test } from '@playwright/test';
import { RUN_URL, RunPage } from '../fixtures/pages';

// The Content-Security-Policy the server sends (issue 17) allows everything the app does and
// the browser reports no violation: the app boots from its own script, compiles its
// WebAssembly, draws a run, and the Simulator's module worker runs the emulator.
test('the app works under its Content-Security-Policy without a violation', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy') || m.text().includes('Content-Security-Policy')) {
      violations.push(m.text());
    }
  });
  const res = await page.goto('/');
  expect(res?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await page.getByTestId('sample-t4').click();
  await page.waitForURL(RUN_URL);
  await new RunPage(page).waitForPaint();
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'Hello through the iserver (a pipe of two)' });
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-output')).toContainText('hello from T800 #0');
  expect(violations).toEqual([]);
});
