import { expect, test, type Page } from '@playwright/test';
import { RunPage, openWorkedExample } from '../fixtures/pages';

const VIEW_URL = /\/v\/[A-Za-z0-9_-]{16}$/;

/** The Gantt chart's geometry (frontend/src/components/gantt/scene/geometry.rs). */
const LABEL_WIDTH = 140;
const AXIS_HEIGHT = 30;
const ROW_HEIGHT = 32;

/** The run's workspace, read back from the store (as a permalink would save it). */
async function workspace(page: Page): Promise<Record<string, unknown>> {
  const json = await page.getByTestId('workspace').getAttribute('data-state');
  return JSON.parse(json ?? 'null');
}

/** Shares the view and returns the link. */
async function share(page: Page): Promise<string> {
  await page.getByTestId('share').click();
  const link = page.getByTestId('share-link');
  await expect(link).toHaveText(VIEW_URL);
  const url = await link.textContent();
  if (!url) throw new Error('no link');
  return url;
}

test('a shared view restores the whole workspace, pixel for pixel, in a fresh browser', async ({ page, browser }) => {
  const run = await openWorkedExample(page);
  const box = await run.canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  const plot = box.width - LABEL_WIDTH;

  // Select A's send of m1 at tick 25 (row 0), with the whole 69 ticks across the plot.
  await page.mouse.click(box.x + LABEL_WIDTH + (25 * plot) / 69, box.y + AXIS_HEIGHT + ROW_HEIGHT / 2);
  await expect(page.getByTestId('event-details')).toContainText('Message send on A on T800 #0');
  // A window: W zooms at the plot's middle when the pointer is away from it.
  await page.mouse.move(1, 1);
  await page.keyboard.press('w');
  await expect(run.canvas).not.toHaveAttribute('data-window', '0-69');
  // A process subset: B's row goes.
  await page.getByTestId('toggle-processes').click();
  await page.getByTestId('process-picker').locator('input[data-process="1"]').uncheck();
  await expect(run.canvas).toHaveAttribute('data-rows', '1');
  // The WCPA overlay, and a filter: no message arrows.
  await page.getByTestId('toggle-wcpa').click();
  await expect(run.canvas).toHaveAttribute('data-path-segments', '7');
  await page.getByTestId('toggle-messages').click();
  await expect(page.getByTestId('toggle-messages')).toHaveAttribute('aria-pressed', 'false');
  const details = page.getByTestId('event-details');
  await expect(details).toContainText('WCPA:');

  const state = await workspace(page);
  expect(state).toMatchObject({
    processes: [0],
    selection: { type: 'event', index: 1 },
    overlays: ['wcpa'],
    filters: [{ type: 'hide_messages' }],
    panels: ['processes'],
  });
  const url = await share(page);
  // What the chart shows, read from the canvas's own pixels once everything has arrived.
  const pixels = async (p: RunPage) => {
    const painted = await p.paintCount();
    await p.page.waitForTimeout(300);
    await p.waitForPaint(painted);
    return p.canvas.evaluate((el) => (el as HTMLCanvasElement).toDataURL());
  };
  const before = await pixels(run);

  // A new context shares nothing with this one but the link.
  const other = await browser.newContext({ viewport: page.viewportSize() ?? undefined });
  const again = new RunPage(await other.newPage());
  await again.page.goto(url);
  await expect(again.heading).toHaveText(/T4 worked example/);
  await again.waitForPaint();
  await expect(again.canvas).toHaveAttribute('data-path-segments', '7');
  await expect(again.page.getByTestId('event-details')).toContainText('WCPA:');
  await expect(again.page.getByTestId('process-picker')).toBeVisible();
  const restored = await workspace(again.page);
  expect(restored).toEqual({ ...state, version: restored.version });
  expect(await pixels(again)).toEqual(before);
  await other.close();
});

test('an old link (version 1: a window only) still opens at its window', async ({ page }) => {
  const run = await openWorkedExample(page);
  const id = /\/runs\/([A-Za-z0-9_-]+)$/.exec(page.url())?.[1];
  const created = await page.request.post('/api/views', {
    data: { version: 1, run: id, window: { start: 10, end: 40 }, overlays: ['critical_path'] },
  });
  expect(created.status()).toBe(201);
  const { path } = await created.json();
  await page.goto(path);
  await run.waitForPaint();
  await expect(run.canvas).toHaveAttribute('data-window', '10-40');
  await expect(page.getByTestId('toggle-critical-path')).toHaveAttribute('aria-pressed', 'true');
  await expect(run.canvas).toHaveAttribute('data-path-segments', '7');
});
