import { expect, test } from '@playwright/test';
import { HomePage, RUN_URL, RunPage, WORKED_EXAMPLE, openWorkedExample } from '../fixtures/pages';

test('uploading the worked example shows its Gantt chart, and its link shows it again', async ({ page, browser }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await page.waitForURL(RUN_URL);

  const run = new RunPage(page);
  await expect(run.heading).toHaveText(/T4 worked example/);
  await expect(page.getByText('2 processes · 13 events · 3 messages · 69 ticks')).toBeVisible();
  await run.waitForPaint();
  const first = await run.pixelCounts();
  // Five computing bars, three blocked bars and three arrows are on the canvas.
  expect(first.computing).toBeGreaterThan(5_000);
  expect(first.blocked).toBeGreaterThan(1_000);
  expect(first.message).toBeGreaterThan(100);

  // The same URL in a fresh browser context (no shared state) shows the same chart.
  const url = page.url();
  const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const again = new RunPage(await other.newPage());
  await again.page.goto(url);
  await expect(again.heading).toHaveText(/T4 worked example/);
  await again.waitForPaint();
  expect(await again.pixelCounts()).toEqual(first);
  await other.close();

  // The run is listed on the home page.
  await home.goto();
  await expect(page.getByRole('link', { name: /T4 worked example/ }).first()).toBeVisible();
});

test('a malformed trace is refused with the line and nothing is stored', async ({ page, request }) => {
  const before = (await (await request.get('/api/runs')).json()).runs.length;
  const home = new HomePage(page);
  await home.goto();
  await home.upload({
    name: 'broken.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"format": "tracescope", "version": 1,\n "nodes": [}'),
  });
  await expect(home.alert).toContainText('line 2');
  await expect(page).toHaveURL(/\/$/);
  const after = (await (await request.get('/api/runs')).json()).runs.length;
  expect(after).toBe(before);
});

test('the wheel zooms at the cursor and the readout follows it', async ({ page }) => {
  const run = await openWorkedExample(page);
  const before = await run.pixelCounts();
  const box = await run.canvas.boundingBox();
  if (!box) throw new Error('canvas has no box');

  // Hover the plot's left part: the readout names a tick.
  await page.mouse.move(box.x + 200, box.y + 60);
  await expect(run.readout).toHaveText(/cursor at tick \d+/);

  // Zoom in there: fewer arrows fit, and the bars under the cursor grow.
  const painted = await run.paintCount();
  await page.mouse.wheel(0, -600);
  await run.waitForPaint(painted + 1);
  const after = await run.pixelCounts();
  expect(after.message).toBeLessThan(before.message);
  expect(after.computing).not.toEqual(before.computing);
});

test('the upload form reads a Pajé trace in the time unit picked', async ({ page }) => {
  const paje = [
    '%EventDef PajeDefineContainerType 1', '% Alias string', '% Type string', '% Name string', '%EndEventDef',
    '%EventDef PajeCreateContainer 7', '% Time date', '% Alias string', '% Type string', '% Container string',
    '% Name string', '%EndEventDef',
    '%EventDef PajeDestroyContainer 8', '% Time date', '% Name string', '% Type string', '%EndEventDef',
    '1 CT 0 Thread', '7 0 t1 CT 0 t1', '8 250 t1 CT', '',
  ].join('\n');
  const home = new HomePage(page);
  await home.goto();
  await page.getByText('Options').click();
  await page.getByTestId('time-unit').selectOption('us');
  await home.upload({ name: 'units.paje', mimeType: 'text/plain', buffer: Buffer.from(paje) });
  await page.waitForURL(RUN_URL);
  // 250 µs, not the 250 s the dates would be read as by default.
  await expect(page.getByText(/1 process · 2 events · 0 messages · 250 µs/)).toBeVisible();
});
