import path from 'node:path';
import { expect, test } from '@playwright/test';
import { openTrace } from '../fixtures/pages';

// The validation panel (issue 44, point 12): diagnostics counted by kind and severity, errors
// first, each kind's first three examples, and "Show more" paging through the rest from the
// server instead of listing every diagnostic.

const EVERY_SEVERITY = path.join(__dirname, '..', 'fixtures', 'diagnostics-of-every-severity.json');

test('the validation panel counts each kind and severity and pages through a kind with Show more', async ({ page }) => {
  await openTrace(page, EVERY_SEVERITY);
  await page.getByTestId('tab-analysis').click();
  const panel = page.getByTestId('panel-diagnostics');
  await expect(panel).toContainText('31 diagnostics: 12 errors, 9 warnings, 10 notes');
  const groups = panel.getByTestId('diagnostic-group');
  await expect(groups).toHaveCount(5);
  // Errors first; a legend names each severity.
  await expect(groups.nth(0)).toHaveAttribute('data-severity', 'error');
  await expect(groups.nth(0)).toHaveAttribute('data-kind', 'leave_without_enter');
  await expect(groups.nth(4)).toHaveAttribute('data-severity', 'note');
  await expect(panel.locator('.severity-legend .severity-note')).toHaveText('note');
  // The twelve leaves: three examples at first, the rest on demand.
  const leaves = groups.nth(0);
  await expect(leaves.locator('tbody tr')).toHaveCount(3);
  await expect(leaves.locator('tbody tr').first()).toContainText('main');
  await leaves.getByTestId('diagnostics-more').click();
  await expect(leaves.locator('tbody tr')).toHaveCount(12);
  await expect(leaves.getByTestId('diagnostics-more')).toHaveCount(0);
  // Each row is a different leave, in time order.
  const times = await leaves.locator('tbody tr td:nth-child(2)').allTextContents();
  expect(times).toEqual(Array.from({ length: 12 }, (_, k) => String(70 + 80 * k)));
});
