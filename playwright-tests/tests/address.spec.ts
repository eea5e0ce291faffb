import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { RunPage, openTrace } from '../fixtures/pages';

// The address is the view (issue 47 point 10): the URL follows the view as it settles, so a
// reload and Back keep the zoom, the tab and the filter; "Share this view" copies its link and
// says so, on its own line; a permalink restores the replay speed exactly.

const NAMES = path.join(__dirname, '..', 'fixtures', 'names-with-spaces.json');

async function workspaceState(page: Page) {
  return JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
}

/** Waits until the address carries the workspace's current window. */
async function addressSettles(page: Page) {
  const { window } = await workspaceState(page);
  await expect
    .poll(() => {
      const view = new URL(page.url()).searchParams.get('view');
      return view ? JSON.parse(view).window : null;
    })
    .toEqual(window);
}

test('reload and Back keep the zoom, the tab and the filter', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const run = await openTrace(page, NAMES);
  const runUrl = page.url().split('?')[0];
  // A run just opened keeps its own plain address until its view changes.
  await page.waitForTimeout(600);
  expect(page.url()).toBe(runUrl);
  for (let i = 0; i < 3; i++) await page.keyboard.press('w');
  const zoomed = (await workspaceState(page)).window;
  expect(zoomed.end - zoomed.start).toBeLessThan(1_900_000_000);
  await addressSettles(page);
  await page.reload();
  await new RunPage(page).waitForPaint();
  expect((await workspaceState(page)).window).toEqual(zoomed);

  await page.getByTestId('event-filter').fill('process="task 1"');
  await page.getByTestId('event-filter-apply').click();
  await page.getByTestId('tab-analysis').click();
  await expect.poll(() => new URL(page.url()).searchParams.get('view') ?? '').toContain('analysis');
  await expect.poll(() => new URL(page.url()).searchParams.get('view') ?? '').toContain('task 1');
  await page.reload();
  await expect(page.getByTestId('tab-analysis')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('chip-events')).toContainText('process="task 1"');
  expect((await workspaceState(page)).window).toEqual(zoomed);

  // Back from another page comes back to the same view.
  await page.goto('/');
  await page.goBack();
  expect(page.url().split('?')[0]).toBe(runUrl);
  await expect(page.getByTestId('tab-analysis')).toHaveAttribute('aria-selected', 'true');
  expect((await workspaceState(page)).window).toEqual(zoomed);
  void run;
});

test('Share copies the link and says so; the permalink keeps the replay speed', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, NAMES);
  const speed = page.getByTestId('replay-speed');
  const speedText = () => speed.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.text ?? '');
  // The page's own pick for a 1.9 s run differs from the one chosen here.
  expect(await speedText()).not.toBe('× 0.01');
  await speed.selectOption({ label: '× 0.01' });
  await page.getByTestId('share').click();
  await expect(page.getByTestId('share-status')).toContainText('Link copied to the clipboard');
  const link = (await page.getByTestId('share-link').getAttribute('href'))!;
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  // The link has its own line: it does not sit beside the run's buttons.
  const button = await page.getByRole('button', { name: 'Repaired clocks' }).boundingBox();
  const shown = await page.getByTestId('share-link').boundingBox();
  expect(shown!.y).toBeGreaterThanOrEqual(button!.y + button!.height);
  await page.screenshot({ path: test.info().outputPath('share-1400.png') });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: test.info().outputPath('share-800.png') });

  await page.goto(link);
  await new RunPage(page).waitForPaint();
  expect(await speedText()).toBe('× 0.01');
  expect((await workspaceState(page)).replay_speed).toBe('× 0.01');
});
