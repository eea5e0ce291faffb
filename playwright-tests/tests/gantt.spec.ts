import { expect, test } from '@playwright/test';
import {
  HomePage,
  RING_ON_TWO_BOARDS,
  RUN_URL,
  RunPage,
  WORKED_EXAMPLE,
  openTrace,
  openWorkedExample,
} from '../fixtures/pages';

/** The Gantt chart's geometry (frontend/src/components/gantt/scene/geometry.rs `Geometry::new`). */
const LABEL_WIDTH = 140;
const AXIS_HEIGHT = 30;
const ROW_HEIGHT = 32;

/** The page position of tick `t` on row `row` when the whole 69 ticks fit the plot. */
async function at(run: RunPage, t: number, row: number): Promise<{ x: number; y: number }> {
  const box = await run.canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  const plot = box.width - LABEL_WIDTH;
  return {
    x: box.x + LABEL_WIDTH + (t * plot) / 69,
    y: box.y + AXIS_HEIGHT + ROW_HEIGHT * row + ROW_HEIGHT / 2,
  };
}

test('an upload shows its progress, then the Gantt chart', async ({ page }) => {
  // Hold the upload's answer for a moment so the progress bar can be seen.
  await page.route('**/api/runs?*', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.continue();
  });
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await expect(page.getByTestId('upload-progress')).toBeVisible();
  await expect(page.getByRole('status')).toContainText('t4-worked-example.json');
  await page.waitForURL(RUN_URL);
  await new RunPage(page).waitForPaint();
  await expect(page.getByTestId('window-readout')).toHaveText('window 0 – 69 ticks');
});

test('W, A, S, D and F move the window, and ? lists every shortcut', async ({ page }) => {
  const run = await openWorkedExample(page);
  const readout = page.getByTestId('window-readout');
  await expect(readout).toHaveText('window 0 – 69 ticks');
  const window = async () => {
    const text = (await readout.textContent()) ?? '';
    const [, a, b] = /window (\d+) – (\d+) ticks/.exec(text) ?? [];
    return [Number(a), Number(b)];
  };
  // Away from the plot, W zooms at its middle: 69 ticks become 55 around tick 34.5.
  await page.mouse.move(1, 1);
  await page.keyboard.press('w');
  await expect(readout).not.toHaveText('window 0 – 69 ticks');
  const [a, b] = await window();
  expect(b - a).toBeLessThan(69);
  expect(a).toBeGreaterThan(0);
  await page.keyboard.press('d');
  await expect.poll(async () => (await window())[0]).toBeGreaterThan(a);
  await page.keyboard.press('a');
  await page.keyboard.press('a');
  await expect.poll(async () => (await window())[0]).toBeLessThan(a);
  const [c, d] = await window();
  await page.keyboard.press('s');
  await expect.poll(async () => { const [x, y] = await window(); return y - x; }).toBeGreaterThan(d - c);
  await page.keyboard.press('f');
  await expect(readout).toHaveText('window 0 – 69 ticks');
  await page.keyboard.press('?');
  const help = page.getByTestId('help');
  await expect(help).toContainText('W / S');
  await expect(help).toContainText('Shift + drag');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  expect(await run.paintCount()).toBeGreaterThan(1);
});

test('clicking a critical-path or WCPA segment opens its details', async ({ page }) => {
  const run = await openWorkedExample(page);
  await page.getByTestId('toggle-critical-path').click();
  // T4a: seven segments, A's computation 0–25 first.
  await expect(run.canvas).toHaveAttribute('data-path-segments', '7');
  const p = await at(run, 10, 0);
  await page.mouse.click(p.x, p.y);
  const popup = page.getByTestId('popup');
  await expect(popup).toContainText('Critical path: computation of A on T800 #0');
  await expect(popup).toContainText('from 0 to 25 (duration 25 ticks)');
  await expect(popup).toContainText('36.2 % of the path');
  // B's last computation, 54–69.
  const q = await at(run, 60, 1);
  await page.mouse.click(q.x, q.y);
  await expect(popup).toContainText('computation of B on T800 #1');
  await expect(popup).toContainText('from 54 to 69 (duration 15 ticks)');
  await page.keyboard.press('Escape');
  await expect(popup).toBeHidden();

  // WCPA (T4b): the same route, A's first computation weighs 30 of 101; the worked example has
  // no phases, so its phase table is one row, "(outside any phase)", 100 %.
  await page.getByTestId('toggle-wcpa').click();
  await expect(page.getByTestId('toggle-critical-path')).toHaveAttribute('aria-pressed', 'false');
  await expect(run.canvas).toHaveAttribute('data-path-segments', '7');
  await expect(page.getByTestId('wcpa-phases')).toContainText('(outside any phase)');
  await expect(page.getByTestId('wcpa-phases')).toContainText('100.0 %');
  await page.mouse.click(p.x, p.y);
  await expect(popup).toContainText('WCPA: computation of A on T800 #0');
  await expect(popup).toContainText('weight 30 ticks, 29.7 % of the path');
});

test("clicking an event opens its details, and its partner's with one more click", async ({ page }) => {
  const run = await openWorkedExample(page);
  // A sends m1 at 25 (its send icon); B receives it at 33.
  const send = await at(run, 25, 0);
  await page.mouse.click(send.x, send.y);
  const details = page.getByTestId('event-details');
  await expect(details).toContainText('Message send on A on T800 #0');
  await expect(details).toContainText('to B, tag 1, 800 B');
  await expect(details).toContainText('partner: message arrival on B at 33 (in transit 8 ticks)');
  // From the server's analysis: m1's transit is on the critical path (8 of 69 ticks).
  await expect(details).toContainText('Critical path: message transit starts here (25 – 33, weight 8 ticks, 11.6 % of the path)');
  await expect(details).toContainText('causes a Late Sender of 5 ticks at the message arrival on B on T800 #1 at 33');
  await page.getByTestId('go-to-partner').click();
  await expect(details).toContainText('Message arrival on B on T800 #1');
  await expect(details).toContainText('blocked from 20 to 33 (13 ticks)');
  await expect(details).toContainText('wait state: Late Sender, 5 ticks, caused by the message send on A on T800 #0 at 25');
  // And back.
  await page.getByTestId('go-to-partner').click();
  await expect(details).toContainText('Message send on A on T800 #0');
});

test('Shift + drag selects a range and shows its statistics', async ({ page }) => {
  const run = await openWorkedExample(page);
  const from = await at(run, 0.3, 0);
  const to = await at(run, 68.7, 1);
  await page.keyboard.down('Shift');
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, to.y, { steps: 5 });
  await page.mouse.move(to.x, to.y, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const stats = page.getByTestId('range-stats');
  // m1, m2 and m3 are all sent inside 0–69: A → B twice, B → A once.
  await expect(stats).toHaveAttribute('data-messages', '3');
  await expect(stats).toContainText('3 messages sent (2.1 kB)');
  const matrix = page.getByTestId('range-matrix');
  await expect(matrix.getByRole('row')).toHaveCount(3);
  // F now fits the selection.
  await page.keyboard.press('f');
  await expect(page.getByTestId('window-readout')).toHaveText('window 0 – 69 ticks');
});

test('processes sit under their boards, which fold; rows scroll; regions are nested bars', async ({ page }) => {
  const run = await openTrace(page, RING_ON_TWO_BOARDS);
  // Two board headers and 24 ranks: more rows than the canvas shows, so there is a scrollbar.
  await expect(run.canvas).toHaveAttribute('data-rows', '26');
  const legend = page.getByTestId('region-legend');
  for (const name of ['step', 'compute', 'MPI_Recv']) await expect(legend).toContainText(name);
  const scrollbar = page.getByTestId('gantt-scrollbar');
  await expect(scrollbar).toBeVisible();
  // Rows scroll a whole row at a time: 200 px is six rows of 32 px.
  await scrollbar.evaluate((el) => (el.scrollTop = 200));
  await expect(run.canvas).toHaveAttribute('data-scroll', '192');
  const box = await run.canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  // The wheel over the labels scrolls the rows back up.
  await page.mouse.move(box.x + 20, box.y + 100);
  await page.mouse.wheel(0, -500);
  await expect(run.canvas).toHaveAttribute('data-scroll', '0');
  await expect.poll(() => scrollbar.evaluate((el) => el.scrollTop)).toBe(0);

  // Rank 0 (row 1) computes from 2 to 10 in its first step: the inner region bar at the bottom
  // of its row (depth 1 of 2: 3 to 0.5 px above the row's last pixel).
  const plot = box.width - LABEL_WIDTH;
  const x = box.x + LABEL_WIDTH + (5 * plot) / 310;
  await page.mouse.click(x, box.y + AXIS_HEIGHT + 2 * ROW_HEIGHT - 3);
  const popup = page.getByTestId('popup');
  await expect(popup).toContainText('Region compute on rank 0 on board 0');
  await expect(popup).toContainText('from 2 to 10 (duration 8 ticks)');
  await page.keyboard.press('Escape');

  // A click on board 0's label folds its twelve ranks into one row, another unfolds them.
  const header = { x: box.x + 20, y: box.y + AXIS_HEIGHT + ROW_HEIGHT / 2 };
  await page.mouse.click(header.x, header.y);
  await expect(run.canvas).toHaveAttribute('data-rows', '14');
  await page.mouse.click(header.x, header.y);
  await expect(run.canvas).toHaveAttribute('data-rows', '26');
});

test('a run drawn by the server looks as it does drawn in the browser', async ({ page }) => {
  const run = await openWorkedExample(page);
  await page.waitForTimeout(200);
  const local = await run.pixelCounts();
  // Large runs stay on the server (over 2 million events); `?detail=server` asks for that here.
  await page.goto(page.url() + '?detail=server');
  await expect(page.getByTestId('detail-source')).toHaveText('drawn by the server');
  await expect(page.getByTestId('window-readout')).toHaveText('window 0 – 69 ticks');
  // The first paint asks the server; its answer repaints.
  await expect.poll(async () => (await run.pixelCounts()).computing).toBeGreaterThan(0);
  const remote = await run.pixelCounts();
  // Zoomed past a tick a pixel, the browser answers per screen pixel and the server (on the
  // shared grid) per tick, so a bar's edge may fall a pixel apart: 5 % of the pixels.
  for (const colour of ['computing', 'blocked'] as const) {
    expect(Math.abs(remote[colour] - local[colour]) / local[colour], colour).toBeLessThan(0.05);
  }
  // The same three arrows; without the events in the browser there are no icons over their
  // ends, so more of their pixels show.
  expect(remote.message).toBeGreaterThanOrEqual(local.message);
  expect(remote.message).toBeLessThan(2 * local.message);
  // Zooming in asks for a finer answer and still draws.
  await page.keyboard.press('w');
  await expect(page.getByTestId('window-readout')).not.toHaveText('window 0 – 69 ticks');
  await expect.poll(async () => (await run.pixelCounts()).computing).toBeGreaterThan(0);
});
