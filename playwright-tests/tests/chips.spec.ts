import { expect, test, type Page } from '@playwright/test';
import { RING_ON_TWO_BOARDS, openTrace, openWorkedExample } from '../fixtures/pages';

// Visible selection (issue 47 point 5): every filter that narrows the views — a topology node,
// a matrix cell, the filter bar — is a chip above the views on every tab, with a clear button
// that has a name; Esc clears the last one.

async function workspaceState(page: Page) {
  return JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
}

test('a topology node click narrows every view and says so on every tab; Esc undoes it', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, RING_ON_TWO_BOARDS);
  await page.getByTestId('tab-topology').click();
  const canvas = page.getByTestId('topology-canvas');
  await expect.poll(async () => JSON.parse((await canvas.getAttribute('data-vertices')) ?? '[]').length).toBeGreaterThan(0);
  const [x, y] = JSON.parse((await canvas.getAttribute('data-vertices'))!)[0] as [number, number, string];
  await canvas.click({ position: { x, y } });
  const chip = page.getByTestId('chip-processes');
  await expect(chip).toContainText('of 24 processes');
  const narrowed = (await workspaceState(page)).processes.length;
  expect(narrowed).toBeLessThan(24);
  for (const tab of ['gantt', 'hasse', 'analysis']) {
    await page.getByTestId(`tab-${tab}`).click();
    await expect(chip, tab).toBeVisible();
  }
  await page.screenshot({ path: test.info().outputPath('chips-1400.png') });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: test.info().outputPath('chips-800.png') });
  await page.keyboard.press('Escape');
  await expect(chip).toHaveCount(0);
  expect((await workspaceState(page)).processes ?? null).toBeNull();
});

test('a matrix cell and the filter bar show chips whose × clears each, and Esc clears the last', async ({ page }) => {
  await openWorkedExample(page);
  await page.getByTestId('tab-analysis').click();
  await page.getByTestId('matrix-cell-1-0').click();
  await expect(page.getByTestId('chip-processes')).toContainText('2 of 2 processes: B, A');
  await expect(page.getByTestId('chip-events')).toContainText('message=1>0');
  await page.getByRole('button', { name: 'Clear the event filter: show every event' }).click();
  await expect(page.getByTestId('chip-events')).toHaveCount(0);
  await expect(page.getByTestId('chip-processes')).toBeVisible();
  // The filter bar's filter is the last set: Esc (once the box has let go of the keys) clears
  // it first, then the processes.
  await page.getByTestId('event-filter').fill('kind=send');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('chip-events')).toContainText('kind=send');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('chip-events')).toHaveCount(0);
  await expect(page.getByTestId('chip-processes')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('narrowing-chips')).toHaveCount(0);
});
