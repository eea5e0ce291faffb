import path from 'node:path';
import { expect, test } from '@playwright/test';
import { WORKED_EXAMPLE, openTrace } from '../fixtures/pages';

// Two runs compared (issue 20): two Gantt charts on one time scale, deltas, a permalink.

const SKEWED_CLOCKS = path.join(__dirname, '..', 'fixtures', 'skewed-clocks.json');

test('two uploads compare side by side on one time scale, and the address reopens it', async ({ page }) => {
  await openTrace(page, SKEWED_CLOCKS);
  const after = page.url().split('/').pop()!;
  await openTrace(page, WORKED_EXAMPLE);
  const before = page.url().split('/').pop()!;
  // The run page's picker opens the comparison of this run with the other.
  await expect(page.getByTestId('compare-with').locator(`option[value="${after}"]`)).toHaveCount(1);
  await expect(page.getByTestId('compare-with').locator(`option[value="${before}"]`)).toHaveCount(0);
  await page.getByTestId('compare-with').selectOption(after);
  await page.waitForURL(`**/compare/${before}/${after}`);

  const sides = [page.getByTestId('compare-before'), page.getByTestId('compare-after')];
  for (const side of sides) {
    await expect.poll(async () => Number(await side.getByTestId('gantt-canvas').getAttribute('data-paint-count'))).toBeGreaterThan(0);
  }
  // One time scale: both windows span the longer run (69 ticks).
  for (const side of sides) {
    await expect(side.getByTestId('window-readout')).toContainText('0 – 69');
  }
  const metrics = page.getByTestId('panel-compare-metrics');
  await expect(metrics.locator('tr', { hasText: 'Execution time' })).toContainText('69');
  await expect(metrics.locator('tr', { hasText: 'Messages' })).toContainText('3');
  const processes = page.getByTestId('panel-compare-processes');
  await expect(processes.locator('tbody tr')).toHaveCount(2);
  await expect(processes.locator('tr', { hasText: /^A/ })).toContainText('40');

  // Zooming one chart zooms the other; the address keeps the window.
  const canvas = sides[0].getByTestId('gantt-canvas');
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.6, box.y + 40);
  await page.mouse.wheel(0, -240);
  await expect(sides[0].getByTestId('window-readout')).not.toContainText('0 – 69');
  const zoomed = await sides[0].getByTestId('window-readout').textContent();
  await expect(sides[1].getByTestId('window-readout')).toHaveText(zoomed!);
  await expect(page).toHaveURL(/\?window=\d+-\d+$/);
  await page.reload();
  await expect(page.getByTestId('compare-after').getByTestId('window-readout')).toHaveText(zoomed!);
});
