import { expect, test } from '@playwright/test';
import { RUN_URL, RunPage } from '../fixtures/pages';

test('the Simulator runs a program in a Web Worker and opens its trace in the Gantt view', async ({
  page,
}) => {
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'Hello through the iserver (a pipe of two)' });
  await expect(page.getByTestId('sim-topology')).toHaveValue('pipe 2');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-output')).toHaveText('hello from T800 #0\nnode 1 sent a word\n');
  await expect(page.getByTestId('sim-readout')).toContainText('100 %');
  await expect(page.getByTestId('sim-status')).toContainText('Finished (exited 0) on 2 nodes');
  await page.getByTestId('sim-open').click();
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await run.waitForPaint();
  await expect(run.heading).toContainText('simulation on pipe 2');
});

test('a mesh run shows its progress and a bad program shows the assembler line', async ({ page }) => {
  await page.goto('/simulate');
  await expect(page.getByTestId('sim-topology')).toHaveValue('mesh 4x4');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-progress')).toBeVisible();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 16 nodes', {
    timeout: 20_000,
  });
  await expect(page.getByTestId('sim-readout')).toContainText('M instructions/s');
  console.log(`mesh 4x4 in wasm: ${await page.getByTestId('sim-readout').textContent()}`);
  await page.getByTestId('sim-source').fill('ldc 1\n  bogus 3\n');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('line 2');
});

test('emulated instructions per second in WebAssembly (COMSTIME, one node)', async ({ page }) => {
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'COMSTIME on one T800 (20,000 iterations)' });
  const source = await page.getByTestId('sim-source').inputValue();
  await page.getByTestId('sim-until').fill('10s');
  const rates: Record<string, number> = {};
  for (const [tracing, iterations] of [
    [false, 100000],
    [true, 100000],
  ] as const) {
    await page.getByTestId('sim-source').fill(source.replace('N = 20000', `N = ${iterations}`));
    await page.getByTestId('sim-tracing').setChecked(tracing);
    await page.getByTestId('sim-run').click();
    // The readout is final once the run has finished (storing a 1.5-million-event trace
    // afterwards is not part of the measurement).
    await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 1 nodes', {
      timeout: 25_000,
    });
    const readout = (await page.getByTestId('sim-readout').textContent()) ?? '';
    const match = readout.match(/([\d,]+) instructions · ([\d.]+) M instructions\/s/);
    expect(match).not.toBeNull();
    // About 60 instructions an iteration.
    expect(Number(match![1].replaceAll(',', ''))).toBeGreaterThan(iterations * 59);
    rates[tracing ? 'tracing on' : 'tracing off'] = Number(match![2]);
  }
  for (const [what, rate] of Object.entries(rates)) {
    test.info().annotations.push({ type: `wasm M instructions/s, ${what}`, description: String(rate) });
    console.log(`COMSTIME in wasm, ${what}: ${rate} M instructions/s`);
    expect(rate).toBeGreaterThan(0);
  }
});
