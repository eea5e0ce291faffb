import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { HomePage, RUN_URL, RunPage, WORKED_EXAMPLE } from '../fixtures/pages';

// The analysis view (issue 20, first part): the worked example's NPT, WCPA, wait states and
// matrix as tables computed for the workspace's selection, a row click into the Gantt chart,
// and a CSV download.

test('the analysis view shows the worked example’s values, its rows lead into the chart, its tables download as CSV', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await page.waitForURL(RUN_URL);
  await new RunPage(page).waitForPaint();
  await page.getByTestId('tab-analysis').click();
  const npt = page.getByTestId('panel-npt');
  await expect(npt).toContainText('Normalized processor time');
  await expect(npt.locator('tr', { hasText: /^A/ })).toContainText('29');
  await expect(npt.locator('tr', { hasText: /^B/ })).toContainText('34');
  await expect(page.getByTestId('panel-wcpa-phases')).toContainText('weight 101.0');
  await expect(page.getByTestId('panel-wait-states').locator('tr', { hasText: 'Late Sender' }).first()).toBeVisible();
  await expect(page.getByTestId('panel-matrix').locator('tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('panel-summary')).toContainText('Execution time');

  // CSV: the NPT table downloads and parses back to its rows.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('csv-npt').click()]);
  expect(download.suggestedFilename()).toBe('npt.csv');
  const lines = fs.readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
  expect(lines[0]).toBe('Process,NPT,Share');
  const rows = Object.fromEntries(lines.slice(1).map((l) => l.split(',')).map((c) => [c[0], Number(c[1])]));
  expect(rows).toEqual({ A: 29, B: 34 });

  // The diagnostics and statistics panels are there.
  await expect(page.getByTestId('panel-statistics')).toContainText('computing');
  await expect(page.getByTestId('panel-diagnostics')).toBeVisible();

  // What if messages took no time: the server replays the run, 69 ticks become fewer.
  await page.getByTestId('what-if').locator('summary').click();
  await page.getByTestId('what-if-preset').selectOption('transit=0');
  await page.getByTestId('what-if-run').click();
  const whatIf = page.getByTestId('panel-what-if');
  await expect(whatIf.locator('tr', { hasText: 'Measured execution time' })).toContainText('69');
  const predicted = await whatIf.locator('tr', { hasText: 'Predicted execution time' }).locator('td').nth(1).textContent();
  expect(Number(predicted!.split(' ')[0])).toBeLessThan(69);

  // The run downloads as Chrome JSON that Perfetto opens: its events are there.
  const [chrome] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-chrome-json').click()]);
  expect(chrome.suggestedFilename()).toMatch(/\.chrome\.json$/);
  const exported = JSON.parse(fs.readFileSync((await chrome.path())!, 'utf8'));
  expect(exported.traceEvents.length).toBeGreaterThan(13);

  // A cell of the matrix shows its messages in the Gantt chart: B's one message to A.
  await page.getByTestId('matrix-cell-1-0').click();
  await expect(page.getByTestId('tab-gantt')).toHaveAttribute('aria-selected', 'true');
  const filtered = JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
  expect(filtered.event_filter).toBe('message=1>0');
  expect(filtered.processes).toEqual([1, 0]);
  await expect(page.getByTestId('gantt-event-filter')).toContainText('message=1>0');
  await page.getByTestId('gantt-event-filter').getByRole('button').click();
  await expect(page.getByTestId('gantt-event-filter')).toHaveCount(0);
  await page.getByTestId('tab-analysis').click();

  // A row of the NPT table shows its process alone in the Gantt chart.
  await npt.locator('tr', { hasText: /^B/ }).click();
  await expect(page.getByTestId('tab-gantt')).toHaveAttribute('aria-selected', 'true');
  const state = JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
  expect(state.processes).toEqual([1]);
  // Back in the analysis view, the tables are for B alone.
  await page.getByTestId('tab-analysis').click();
  await expect(page.getByTestId('analysis-scope')).toContainText('1 of 2 processes');
  await expect(page.getByTestId('panel-npt').locator('tbody tr')).toHaveCount(1);

  // The permalink reopens the analysis view for the same selection.
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').getAttribute('href');
  await page.goto(link!);
  await expect(page.getByTestId('tab-analysis')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('analysis-scope')).toContainText('1 of 2 processes');
  await expect(page.getByTestId('panel-npt').locator('tbody tr')).toHaveCount(1);
});
