import { expect, test } from '@playwright/test';
import { RunPage, openWorkedExample } from '../fixtures/pages';

const VIEW_URL = /\/v\/[A-Za-z0-9_-]{16}$/;

test('a shared view opens at the same time window in a fresh browser', async ({ page, browser }) => {
  const run = await openWorkedExample(page);
  const whole = await run.canvas.getAttribute('data-window');
  expect(whole).toMatch(/^0-69$/);

  // Zoom in at the plot's left part, then share.
  const box = await run.canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  await page.mouse.move(box.x + 300, box.y + 60);
  const painted = await run.paintCount();
  await page.mouse.wheel(0, -400);
  await run.waitForPaint(painted + 1);
  const zoomed = await run.canvas.getAttribute('data-window');
  expect(zoomed).not.toEqual(whole);
  const pixels = await run.pixelCounts();

  await page.getByTestId('share').click();
  const link = page.getByTestId('share-link');
  await expect(link).toHaveText(VIEW_URL);
  const url = await link.textContent();
  if (!url) throw new Error('no link');

  // No shared state: a new context opens the link at the same window, drawn the same.
  const other = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
  const again = new RunPage(await other.newPage());
  await again.page.goto(url);
  await expect(again.heading).toHaveText(/T4 worked example/);
  await again.waitForPaint();
  await expect(again.canvas).toHaveAttribute('data-window', zoomed ?? '');
  // The link stores whole ticks, so the drawing is the zoomed one to within a sub-tick shift…
  const shared = await again.pixelCounts();
  for (const key of Object.keys(pixels) as (keyof typeof pixels)[]) {
    expect(Math.abs(shared[key] - pixels[key])).toBeLessThan(0.05 * pixels[key] + 10);
  }
  // …and exactly what anyone else opening the link sees.
  await page.goto(url);
  await run.waitForPaint();
  await expect(run.canvas).toHaveAttribute('data-window', zoomed ?? '');
  expect(await run.pixelCounts()).toEqual(shared);
  await other.close();
});
