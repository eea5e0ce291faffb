import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';

// The topology view and the replay (issue 19): a simulated 4×4 mesh on its grid, a node's
// pop-up and its processes alone in the Gantt chart, the replay clock moving the Gantt cursor
// and drawing messages in flight, steps from event to event, and a permalink that keeps the
// clock and the selection.

async function workspaceState(page: Page) {
  return JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
}

/** The topology's vertices as drawn: [x, y, name] in CSS pixels of its canvas. */
async function vertices(page: Page): Promise<[number, number, string][]> {
  const canvas = page.getByTestId('topology-canvas');
  const read = async () => JSON.parse((await canvas.getAttribute('data-vertices')) ?? '[]') as [number, number, string][];
  await expect.poll(async () => (await read()).length).toBeGreaterThan(0);
  return read();
}

async function simulatedMesh(page: Page) {
  await page.goto('/simulate');
  await expect(page.getByTestId('sim-topology')).toHaveValue('mesh 4x4');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 16 nodes', { timeout: 60_000 });
  await page.getByTestId('sim-open').click();
  await page.waitForURL(/\/runs\//);
}

test('a simulated 4×4 mesh on its grid: a node’s pop-up, its processes alone, a replay with messages in flight, and a permalink that keeps the clock', async ({ page }) => {
  await simulatedMesh(page);
  await page.getByTestId('tab-topology').click();
  await expect(page.getByTestId('topology-kind')).toContainText('Network: mesh 4x4');
  const drawn = await vertices(page);
  const node5 = drawn.find((v) => v[2] === 'T800 #5')!;
  const node6 = drawn.find((v) => v[2] === 'T800 #6')!;
  const node9 = drawn.find((v) => v[2] === 'T800 #9')!;
  // On the grid: #6 right of #5 on its row, #9 below it in its column.
  expect(Math.abs(node6[1] - node5[1])).toBeLessThan(1);
  expect(node6[0]).toBeGreaterThan(node5[0]);
  expect(Math.abs(node9[0] - node5[0])).toBeLessThan(1);
  expect(node9[1]).toBeGreaterThan(node5[1]);

  // A node's pop-up gives its busy share; the other views show only its processes.
  await page.getByTestId('topology-canvas').click({ position: { x: node5[0], y: node5[1] } });
  await expect(page.getByTestId('topology-details-title')).toHaveText('T800 #5');
  await expect(page.getByTestId('topology-busy')).toHaveText(/^\d+\.\d %$/);
  const state = await workspaceState(page);
  expect(state.processes.length).toBeGreaterThan(0);
  await page.getByTestId('tab-gantt').click();
  await expect(page.getByText(`Processes (${state.processes.length}/`)).toBeVisible();

  // Play for a second: the clock advances and the Gantt chart draws its cursor.
  await page.getByTestId('replay-play').click();
  await page.waitForTimeout(1000);
  await page.getByTestId('replay-play').click();
  const tick = Number(await page.getByTestId('replay-clock').getAttribute('data-tick'));
  expect(tick).toBeGreaterThan(0);
  expect((await workspaceState(page)).replay).toBe(tick);

  // Step by event: forward moves later, back returns.
  await page.getByTestId('replay-forward').click();
  const after = Number(await page.getByTestId('replay-clock').getAttribute('data-tick'));
  expect(after).toBeGreaterThan(tick);
  // Back: the last event before it (the clock had stopped between events).
  await page.getByTestId('replay-back').click();
  await expect
    .poll(async () => Number(await page.getByTestId('replay-clock').getAttribute('data-tick')))
    .toBeLessThanOrEqual(tick);
  // The keyboard steps the same way.
  await page.keyboard.press('.');
  await expect(page.getByTestId('replay-clock')).toHaveAttribute('data-tick', String(after));

  // The topology at the clock: its load is the instant's, and a message is drawn in flight
  // somewhere in the run (scrub until one is).
  await page.getByTestId('tab-topology').click();
  await expect(page.getByTestId('topology-kind')).toContainText('load at the replay clock');
  const canvas = page.getByTestId('topology-canvas');
  let flying = 0;
  for (let k = 0; k < 200 && flying === 0; k++) {
    await page.keyboard.press('.');
    // The dots of a frame painted at this clock (the attribute follows the paint).
    const at = await page.getByTestId('replay-clock').getAttribute('data-tick');
    await expect(canvas).toHaveAttribute('data-dots-at', at ?? '');
    flying = Number(await canvas.getAttribute('data-dots'));
  }
  expect(flying).toBeGreaterThan(0);
  const clock = Number(await page.getByTestId('replay-clock').getAttribute('data-tick'));
  const load = JSON.parse((await canvas.getAttribute('data-load')) ?? '{}');
  expect(load.start).toBe(clock);

  // The topology at the clock exports as SVG (with a message in flight) and as PNG.
  const [svgDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('topology-export').click(),
  ]);
  expect(svgDownload.suggestedFilename()).toBe('topology.svg');
  const svg = fs.readFileSync((await svgDownload.path())!, 'utf8');
  expect(svg.startsWith('<svg')).toBe(true);
  expect(svg).toContain('>#5<');
  expect(svg).toContain('fill="#1f1f1f"');
  const [pngDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('topology-export-png').click(),
  ]);
  expect(pngDownload.suggestedFilename()).toBe('topology.png');
  const png = fs.readFileSync((await pngDownload.path())!);
  expect(png.subarray(1, 4).toString()).toBe('PNG');

  // The permalink reopens at the same clock, view and selection.
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').getAttribute('href');
  await page.goto(link!);
  await expect(page.getByTestId('replay-clock')).toHaveAttribute('data-tick', String(clock));
  const reopened = await workspaceState(page);
  expect(reopened.kind).toBe('topology');
  expect(reopened.processes).toEqual(state.processes);
  await expect(page.getByTestId('topology-kind')).toContainText('Network: mesh 4x4');
});
