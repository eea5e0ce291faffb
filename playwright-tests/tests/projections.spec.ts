import * as path from 'path';
import { expect, test } from '@playwright/test';
import { HomePage, RUN_URL, RunPage } from '../fixtures/pages';

/** The hand-made Charm++ Projections trace: a .sts and one log per PE. */
const HAND = path.resolve(__dirname, '..', '..', 'shared', 'tests', 'data', 'projections', 'handmade');

test('a Projections .sts and its logs picked together open in the Gantt chart', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  // The formats list names Projections and what it needs.
  await page.getByTestId('formats').locator('summary').click();
  await expect(page.getByTestId('formats')).toContainText('Projections');
  await expect(page.getByTestId('formats')).toContainText('.sts');

  // Picked together, the three files are packed into one tar in the page and read as one trace.
  await home.upload(['hand.sts', 'hand.0.log', 'hand.1.log'].map((f) => path.join(HAND, f)));
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await expect(run.heading).toHaveText(/hand/);
  // Two PEs; 6 enters, 6 leaves, 2 sends, 2 arrivals, 2 starts, 2 ends; 130 µs.
  await expect(page.getByText(/2 processes · 20 events · 2 messages · 130 µs/)).toBeVisible();
  await run.waitForPaint();
  const counts = await run.pixelCounts();
  expect(counts.computing).toBeGreaterThan(1_000);
  expect(counts.message).toBeGreaterThan(10);
});

test('a Projections log picked alone is refused with what else it needs', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(path.join(HAND, 'hand.0.log'));
  await expect(home.alert).toContainText('.sts with its');
  await expect(page).toHaveURL(/\/$/);
});
