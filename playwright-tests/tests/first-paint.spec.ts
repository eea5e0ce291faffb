import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { HomePage, openWorkedExample, RING_ON_TWO_BOARDS, RUN_URL, RunPage } from '../fixtures/pages';
import { uploadRing } from '../fixtures/ring';

// Issue 47, point 1: any run opens at once. The page draws the Gantt chart from the server's
// index first, whatever the run's size, and loads the model in the background in the binary
// format, with progress; the views that need the model follow when it has arrived.
// Point 2: the wheel zooms no finer than a readable resolution.

const SHOTS = path.join(__dirname, '..', '..', 'target', 'screenshots');

/** Records, from navigation on (`performance.now()`), when the Gantt canvas was first painted at
 *  all, when it first painted a whole frame (`data-drawn-at`), what the workspace said of the
 *  model then, whether a progress line was shown, and when the model was in. */
async function watchFirstPaint(page: Page) {
  await page.addInitScript(() => {
    const w = window as any;
    const seen: Record<string, unknown> = {};
    w.__firstPaint = seen;
    const look = () => {
      const now = performance.now();
      const canvas = document.querySelector('[data-testid=gantt-canvas]');
      const workspace = document.querySelector('[data-testid=workspace]');
      const model = workspace?.getAttribute('data-model') ?? null;
      if (canvas && Number(canvas.getAttribute('data-paint-count')) >= 1 && seen.painted === undefined) {
        seen.painted = now;
      }
      const drawnAt = canvas?.getAttribute('data-drawn-at');
      if (drawnAt && seen.drawn === undefined) {
        seen.drawn = Number(drawnAt);
        seen.modelWhenDrawn = model;
      }
      if (document.querySelector('[data-testid=model-progress] progress')) seen.progress = true;
      if (model === 'ready' && seen.model === undefined) seen.model = now;
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
    // The main thread's long tasks, to report how long the page is busy once the model is in.
    seen.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) (seen.longTasks as number[][]).push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  });
}

const firstPaint = (page: Page) => page.evaluate(() => (window as any).__firstPaint);

test('a 10^6-event run paints its chart from the server before its model arrives, then loads the model with progress', async ({
  page,
  request,
}) => {
  test.setTimeout(600_000);
  const id = await uploadRing(request, 64, 1_000_000);
  await watchFirstPaint(page);
  // The page's wasm is cached first, as for anyone who has opened the page before.
  await page.goto('/');
  await expect(page.getByTestId('trace-file')).toBeAttached({ timeout: 60_000 });
  await page.goto(`/runs/${id}`);

  await expect.poll(async () => (await firstPaint(page)).painted, { timeout: 300_000 }).toBeDefined();
  console.log(`first-paint: canvas first painted ${Math.round((await firstPaint(page)).painted)} ms after navigation`);
  await expect.poll(async () => (await firstPaint(page)).drawn, { timeout: 300_000 }).toBeDefined();
  await page.screenshot({ path: path.join(SHOTS, 'first-paint-1e6-drawn.png') });
  await expect.poll(async () => (await firstPaint(page)).model, { timeout: 300_000 }).toBeDefined();
  const seen = await firstPaint(page);
  console.log(
    `first-paint: 10^6 events: whole frame from the server's index at ${Math.round(seen.drawn)} ms, ` +
      `model in the page at ${Math.round(seen.model)} ms (after navigation, wasm cached); ` +
      `longest main-thread task after the first paint ${Math.round(
        Math.max(0, ...(seen.longTasks as number[][]).filter(([at]) => at >= seen.drawn).map(([, d]) => d)),
      )} ms`,
  );
  // The chart was whole while the model was still on its way, and the page said so.
  expect(seen.modelWhenDrawn).toBe('loading');
  expect(seen.drawn).toBeLessThan(seen.model);
  expect(seen.progress).toBe(true);
  // Once the model is in, the chart draws it in the page and the views that need it work.
  const canvas = page.getByTestId('gantt-canvas');
  await expect.poll(async () => Number(await canvas.getAttribute('data-paint-count'))).toBeGreaterThan(0);
  await expect(page.getByTestId('model-progress')).toHaveCount(0);
  await expect(page.getByTestId('toggle-repaired-clocks')).toBeEnabled();
  await page.screenshot({ path: path.join(SHOTS, 'first-paint-1e6-model.png') });
});

test('a small run takes the same path: the chart first, the model held back, and what was done meanwhile is kept', async ({
  page,
}) => {
  // The model is held back until released, so what happens meanwhile is certain.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/api/runs/*/model', async (route) => {
    await held;
    await route.continue();
  });
  await watchFirstPaint(page);
  const home = new HomePage(page);
  await home.goto();
  await home.upload(RING_ON_TWO_BOARDS);
  await page.waitForURL(RUN_URL);
  const canvas = page.getByTestId('gantt-canvas');
  await expect(canvas).toHaveAttribute('data-drawn-at', /\d/);
  // Drawn by the server while the model is on its way, said so, and the repair waits for it.
  const workspace = page.getByTestId('workspace');
  await expect(workspace).toHaveAttribute('data-model', 'loading');
  await expect(page.getByTestId('detail-source')).toHaveText('drawn by the server');
  await expect(page.getByTestId('model-progress')).toContainText('Loading the run into the page');
  await expect(page.getByTestId('toggle-repaired-clocks')).toBeDisabled();
  // A zoom and a fold made now stay when the views are built again on the model.
  const whole = (await canvas.getAttribute('data-window')) ?? '';
  await page.mouse.move(1, 1);
  await page.keyboard.press('w');
  await expect(canvas).not.toHaveAttribute('data-window', whole);
  const window = await canvas.getAttribute('data-window');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  // Board 0's header, the first row under the axis (30 px), folds its twelve ranks.
  await page.mouse.click(box.x + 20, box.y + 30 + 32 / 2);
  await expect(canvas).toHaveAttribute('data-rows', '14');
  release();
  await expect(workspace).toHaveAttribute('data-model', 'ready');
  await expect(page.getByTestId('detail-source')).toHaveCount(0);
  await expect(page.getByTestId('model-progress')).toHaveCount(0);
  await expect(page.getByTestId('toggle-repaired-clocks')).toBeEnabled();
  await expect(canvas).toHaveAttribute('data-window', window ?? '');
  await expect(canvas).toHaveAttribute('data-rows', '14');
  const seen = await firstPaint(page);
  expect(seen.modelWhenDrawn).toBe('loading');
  expect(seen.drawn).toBeLessThan(seen.model);
});

/** Zooms in at the plot's middle with the wheel and the W key until nothing changes; answers the
 *  window's width in ticks and the plot's width in pixels. */
async function zoomInAllTheWay(page: Page): Promise<{ width: number; plot: number }> {
  const canvas = page.getByTestId('gantt-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');
  const left = Number(await canvas.getAttribute('data-plot-left'));
  const plot = box.width - left;
  await page.mouse.move(box.x + left + plot / 2, box.y + box.height / 2);
  const width = async () => {
    const [start, end] = ((await canvas.getAttribute('data-window')) ?? '0-0').split('-').map(Number);
    return end - start;
  };
  let last = -1;
  for (let round = 0; round < 20 && last !== (await width()); round++) {
    last = await width();
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, -400);
    await page.keyboard.press('w');
    await page.waitForTimeout(50);
  }
  return { width: await width(), plot };
}

/** `width` is `expected` within a tick or 1 % (the plot's width as the page measures it, less
 *  its right margin, is a pixel or two narrower than its box). */
function expectNear(width: number, expected: number) {
  expect(Math.abs(width - expected)).toBeLessThanOrEqual(Math.max(1.5, expected * 0.01));
}

test('the wheel zooms no finer than 64 pixels a tick, nor 2 ns a pixel', async ({ page, request }) => {
  // Unitless ticks: the worked example's 69 ticks zoom in to 64 pixels a tick and no further.
  await openWorkedExample(page);
  const ticks = await zoomInAllTheWay(page);
  expect(ticks.width).toBeLessThan(69);
  expectNear(ticks.width, ticks.plot / 64);
  await page.screenshot({ path: path.join(SHOTS, 'zoom-floor-ticks.png') });

  // Nanosecond ticks: a millisecond of two processes zooms in to 2 ns a pixel and no further.
  const trace = {
    format: 'tracescope',
    version: 1,
    name: 'a millisecond in nanoseconds',
    ticks_per_second: 1_000_000_000,
    nodes: [{ name: 'n0' }],
    processes: [
      { name: 'p0', node: 0 },
      { name: 'p1', node: 0 },
    ],
    events: [
      { process: 0, time: 1000, kind: 'msg_send', to: 1, tag: 0, size: 8 },
      { process: 1, time: 400_000, kind: 'recv_call', tag: 0 },
      { process: 1, time: 500_000, kind: 'msg_arr', from: 0, tag: 0, size: 8 },
      { process: 0, time: 1_000_000, kind: 'msg_send', to: 1, tag: 1, size: 8 },
      { process: 1, time: 1_000_500, kind: 'recv_call', tag: 1 },
      { process: 1, time: 1_001_000, kind: 'msg_arr', from: 0, tag: 1, size: 8 },
    ],
  };
  const created = await request.post('/api/runs?name=ns.json', {
    data: Buffer.from(JSON.stringify(trace)),
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(created.status()).toBe(201);
  await page.goto(`/runs/${(await created.json()).id}`);
  await new RunPage(page).waitForPaint();
  const ns = await zoomInAllTheWay(page);
  expectNear(ns.width, ns.plot * 2);
  await page.screenshot({ path: path.join(SHOTS, 'zoom-floor-ns.png') });
  // Zooming out still works from the floor.
  const canvas = page.getByTestId('gantt-canvas');
  await page.mouse.wheel(0, 400);
  await expect
    .poll(async () => {
      const [start, end] = ((await canvas.getAttribute('data-window')) ?? '0-0').split('-').map(Number);
      return end - start;
    })
    .toBeGreaterThan(ns.width);
});
