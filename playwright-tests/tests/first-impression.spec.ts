import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { COLORS, RUN_URL, RunPage, TRACES } from '../fixtures/pages';

// What a newcomer meets first (issue 16): samples and multi-file uploads from the home page, a
// time axis round in the trace's unit, distinct region colours, a readable many-node run, and
// counter tracks.

/** Opens a sample from the home page and waits for its chart. */
async function openSample(page: Page, id: string): Promise<RunPage> {
  await page.goto('/');
  await page.getByTestId(`sample-${id}`).click();
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await run.waitForPaint();
  return run;
}

/** The page scrolls sideways by this many pixels (0: it fits). */
async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The region legend's colours, one per entry. */
async function legendColours(page: Page): Promise<string[]> {
  const legend = page.getByTestId('region-legend');
  await expect(legend.locator('[data-color]').first()).toBeVisible();
  return legend.locator('[data-color]').evaluateAll((els) => els.map((e) => e.getAttribute('data-color') ?? ''));
}

for (const width of [800, 1400]) {
  test(`the Paraver sample fits a ${width} px window with one colour per region`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await openSample(page, 'paraver');
    await expect(page.getByTestId('region-legend')).toContainText('MPI_Send');
    // What the importer skipped is said on the page, folded.
    await expect(page.getByTestId('import-notes')).toContainText('What the importer noted');
    await page.screenshot({ path: test.info().outputPath(`paraver-${width}.png`) });
    expect(await overflow(page)).toBe(0);
    const colours = await legendColours(page);
    expect(colours.length).toBeGreaterThan(10);
    expect(new Set(colours).size).toBe(colours.length);
    expect(colours).not.toContain('#d62728');
  });
}

test('the OTF2 sample reads in round milliseconds, first and last labels whole, and draws its PAPI counters', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const run = await openSample(page, 'otf2-papi');
  await page.screenshot({ path: test.info().outputPath('otf2-papi.png') });
  const axis: [string, number][] = JSON.parse((await run.canvas.getAttribute('data-axis')) ?? '[]');
  const plotLeft = Number(await run.canvas.getAttribute('data-plot-left'));
  expect(axis.length).toBeGreaterThanOrEqual(5);
  const [first, last] = [axis[0], axis[axis.length - 1]];
  for (const [label] of [first, last]) expect(label).toMatch(/^\d+ ms$/);
  // Each label's painted text lies inside the plot: measured in the canvas's own font.
  const widths = await run.canvas.evaluate((el, texts) => {
    const ctx = (el as HTMLCanvasElement).getContext('2d')!;
    ctx.font = '12px system-ui, sans-serif';
    return { canvas: (el as HTMLCanvasElement).clientWidth, text: texts.map((t) => ctx.measureText(t).width) };
  }, axis.map((a) => a[0]));
  axis.forEach(([label, left], k) => {
    expect(left, label).toBeGreaterThanOrEqual(plotLeft);
    expect(left + widths.text[k], label).toBeLessThanOrEqual(widths.canvas);
  });
  // Two ranks, each with three counter tracks under it.
  await expect(run.canvas).toHaveAttribute('data-rows', '8');
  expect((await run.pixelCounts()).counter).toBeGreaterThan(500);
});

test('an OTF2 archive folder and a .prv with its .pcf upload as one trace each', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('trace-folder').setInputFiles(path.join(TRACES, 'otf2', 'pipit-ping-pong-otf2'));
  await page.waitForURL(RUN_URL);
  await expect(page.getByTestId('run-name')).toHaveText('pipit-ping-pong-otf2.tar');
  await expect(page.getByTestId('region-legend')).toContainText('MPI_Recv');

  await page.goto('/');
  const dir = path.join(TRACES, 'paraver', 'paraver-kernel-qsort_beo3');
  await page.getByTestId('trace-file').setInputFiles([path.join(dir, 'qsort_beo3.prv'), path.join(dir, 'qsort_beo3.pcf')]);
  await page.waitForURL(RUN_URL);
  await expect(page.getByTestId('run-name')).toHaveText('qsort_beo3.tar');
  const legend = page.getByTestId('region-legend');
  await expect(legend).toContainText('MPI_Bcast');
  await expect(legend).not.toContainText('type 5000');

  // Unrelated files together are refused with a reason.
  await page.goto('/');
  await page.getByTestId('trace-file').setInputFiles([
    path.join(TRACES, 'shiviz', 'govector-RpcClientServer.log'),
    path.join(TRACES, 'paje', 'pajeng-simgrid-ms.trace'),
  ]);
  await expect(page.getByRole('alert')).toContainText('2 files were picked');
});

test('a 64-node mesh opens folded and its critical path is in view when switched on', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('/simulate');
  const source = await page.getByTestId('sim-source').inputValue();
  await page.getByTestId('sim-source').fill(source.replace('WIDTH = 4', 'WIDTH = 8'));
  await page.getByTestId('sim-topology').fill('mesh 8x8');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('on 64 nodes', { timeout: 60_000 });
  await page.getByTestId('sim-open').click();
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await run.waitForPaint();
  // 64 transputers and the host, one row each.
  await expect(run.canvas).toHaveAttribute('data-rows', '65');
  await expect(page.getByTestId('fold-all')).toBeDisabled();
  await expect(page.getByTestId('unfold-all')).toBeEnabled();
  expect((await run.pixelCounts()).path).toBe(0);
  await page.getByTestId('toggle-critical-path').click();
  await expect.poll(async () => (await run.pixelCounts()).path, { timeout: 30_000 }).toBeGreaterThan(100);
  await page.screenshot({ path: test.info().outputPath('mesh-critical-path.png') });
  // Unfolding gives every process its row.
  await page.getByTestId('unfold-all').click();
  await expect.poll(async () => Number(await run.canvas.getAttribute('data-rows'))).toBeGreaterThan(180);
});

test('runs can be found by name and deleted by the browser that uploaded them', async ({ page }) => {
  await openSample(page, 'shiviz');
  await page.goto('/');
  await page.getByTestId('run-search').fill('RpcClientServer');
  const rows = page.getByTestId('run-table').locator('tbody tr');
  // Wait for the filtered list: every row matches (other tests' runs are stored too).
  await expect
    .poll(async () => (await rows.allTextContents()).every((t) => t.includes('RpcClientServer')))
    .toBe(true);
  const before = await rows.count();
  // Only the run this browser uploaded offers Delete.
  await expect(page.getByTestId('delete-run')).toHaveCount(1);
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByTestId('delete-run').click();
  await expect(rows).toHaveCount(before - 1);
  await page.getByTestId('run-search').fill('no run has this name');
  await expect(page.getByText('No run matches.')).toBeVisible();
});
