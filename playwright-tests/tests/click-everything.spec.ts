import { expect, test, type Page } from '@playwright/test';
import { RUN_URL, RunPage } from '../fixtures/pages';

// Issue 46 point 13: on every sample, every tab and every button of the run page works without a
// page error or a console error (a panic in the wasm shows as both).

const SAMPLES = ['t4', 'master-workers', 'otf2-papi', 'paraver', 'chrome-webview', 'simgrid', 'starpu', 'shiviz'];

/** Clicks every visible, enabled button inside the run's workspace once, in document order,
 * reading the list again after each click (a click may open or close a part of the page). */
async function clickEveryButton(page: Page, tab: string, clicked: Set<string>) {
  const buttons = page.getByTestId('workspace').locator('button:visible:not([disabled])');
  // At most this many clicks a tab: the lists of a big run (events, motifs) repeat one button.
  for (let i = 0; i < 150; i++) {
    // Every button's name (test id, accessible label or text) and place, in one round trip.
    const names = await buttons.evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('role') ?? ''}|${e.getAttribute('data-testid') ?? e.getAttribute('aria-label') ?? (e as HTMLElement).innerText.trim()}`),
    );
    const next = names.findIndex((name, k) => !clicked.has(`${tab}/${name}/${k}`) && !name.startsWith('tab|'));
    if (next < 0) return;
    clicked.add(`${tab}/${names[next]}/${next}`);
    await buttons.nth(next).click({ timeout: 2_000 }).catch(() => undefined);
    // Whatever the click started (a replay, a download) gets a frame to fail in.
    await page.waitForTimeout(30);
  }
}

for (const sample of SAMPLES) {
  test(`every tab and button of the ${sample} sample works without an error`, async ({ page }) => {
    test.setTimeout(180_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto('/');
    await page.getByTestId(`sample-${sample}`).click();
    await page.waitForURL(RUN_URL);
    await new RunPage(page).waitForPaint();
    const clicked = new Set<string>();
    for (const tab of ['gantt', 'hasse', 'topology', 'analysis', 'gantt']) {
      await page.getByTestId(`tab-${tab}`).click();
      await expect(page.getByTestId(`tab-${tab}`)).toHaveAttribute('aria-selected', 'true');
      await clickEveryButton(page, tab, clicked);
      // Back on the page's own address, whatever a button opened.
      if (!RUN_URL.test(new URL(page.url()).pathname)) await page.goBack();
    }
    expect(clicked.size).toBeGreaterThan(20);
    expect(errors).toEqual([]);
  });
}
