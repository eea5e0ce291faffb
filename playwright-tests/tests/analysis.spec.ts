import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import path from 'node:path';
import { HomePage, RUN_URL, RunPage, TRACES, WORKED_EXAMPLE, openTrace } from '../fixtures/pages';

const SKEWED_CLOCKS = path.join(__dirname, '..', 'fixtures', 'skewed-clocks.json');

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
  expect(lines[0]).toBe('Process,NPT,Share (%)');
  const rows = Object.fromEntries(lines.slice(1).map((l) => l.split(',')).map((c) => [c[0], Number(c[1])]));
  expect(rows).toEqual({ A: 29, B: 34 });

  // The diagnostics and statistics panels are there.
  await expect(page.getByTestId('panel-statistics')).toContainText('computing');
  await expect(page.getByTestId('panel-diagnostics')).toBeVisible();

  // The NPT tree: B (34) above A (29), each with its time outside regions folded under it.
  const tree = page.getByTestId('panel-npt-tree');
  await expect(tree.locator('tbody tr').nth(0)).toContainText('B');
  await expect(tree.locator('tbody tr').nth(0)).toContainText('34');
  await expect(tree.locator('tbody tr', { hasText: /^\W*A/ }).first()).toContainText('29');
  await expect(tree.locator('tbody tr', { hasText: 'outside regions' })).toHaveCount(2);

  // A histogram with its quartiles: the blocked spans' median is 13 ticks; it saves as SVG.
  const blocked = page.getByTestId('panel-histogram-state-blocked');
  await expect(blocked).toContainText('median 13');
  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('svg-histogram-state-blocked').click()]);
  expect(svg.suggestedFilename()).toBe('histogram-state-blocked.svg');
  expect(fs.readFileSync((await svg.path())!, 'utf8')).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<rect/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('png-parallelism').click()]);
  expect(fs.readFileSync((await png.path())!).subarray(1, 4).toString()).toBe('PNG');

  // Waiting by call site and the delay costs (the root causes) are there.
  await expect(page.getByTestId('panel-wait-call-sites').locator('tbody tr')).toHaveCount(1);
  await expect(page.getByTestId('panel-delay-costs')).toContainText('short');

  // What if messages took no time: the server replays the run, 69 ticks become fewer.
  await page.getByTestId('what-if').locator('summary').click();
  await page.getByTestId('what-if-preset').selectOption('transit=0');
  await page.getByTestId('what-if-run').click();
  const whatIf = page.getByTestId('panel-what-if');
  await expect(whatIf.locator('tr', { hasText: 'Measured execution time' })).toContainText('69');
  const predicted = await whatIf.locator('tr', { hasText: 'Predicted execution time' }).locator('td').nth(1).textContent();
  expect(Number(predicted!.split(' ')[0])).toBeLessThan(69);
  // Each process's end, measured and predicted (B: 69 → 53), and the two runs drawn.
  const ends = page.getByTestId('panel-what-if-processes').locator('tr', { hasText: /^B/ });
  await expect(ends).toContainText('69');
  await expect(ends).toContainText('53');
  await expect(page.getByTestId('panel-what-if-chart').locator('svg rect').nth(5)).toBeAttached();

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
  await expect(page.getByTestId('chip-events')).toContainText('message=1>0');
  // The workspace's filter bar shows it, and the analysis panels' lists keep only those
  // messages: one row in the matrix.
  await expect(page.getByTestId('event-filter')).toHaveValue('message=1>0');
  await page.getByTestId('tab-analysis').click();
  await expect(page.getByTestId('analysis-scope')).toContainText('message=1>0');
  await expect(page.getByTestId('panel-matrix').locator('tbody tr')).toHaveCount(1);
  await page.getByTestId('tab-gantt').click();
  await page.getByTestId('chip-events').getByRole('button').click();
  await expect(page.getByTestId('chip-events')).toHaveCount(0);
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

test('the Gantt chart saves as SVG and PNG', async ({ page }) => {
  await openTrace(page, WORKED_EXAMPLE);
  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('gantt-export-svg').click()]);
  expect(svg.suggestedFilename()).toBe('gantt.svg');
  const text = fs.readFileSync((await svg.path())!, 'utf8');
  // The rows' labels and the bars are in it.
  expect(text).toContain('A @ T800 #0');
  expect((text.match(/<rect/g) ?? []).length).toBeGreaterThan(8);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('gantt-export-png').click()]);
  expect(fs.readFileSync((await png.path())!).subarray(1, 4).toString()).toBe('PNG');
});

test('repaired clocks move the events that broke causality', async ({ page }) => {
  const run = await openTrace(page, SKEWED_CLOCKS);
  const share = async () => {
    const c = await run.pixelCounts();
    return c.blocked / (c.blocked + c.computing);
  };
  const before = await share();
  await page.getByTestId('toggle-repaired-clocks').click();
  await expect(page.getByTestId('toggle-repaired-clocks')).toHaveAttribute('aria-pressed', 'true');
  // B's clock ran 10 ticks behind: its first arrival and everything after it on B move.
  await expect(page.getByTestId('repaired-clocks-note')).toContainText('6 events moved');
  // The window widens to the repaired run, up to 7 ticks longer than the recorded 59.
  await expect(page.getByTestId('window-readout')).toContainText(/0 – 6\d ticks/);
  // The chart is drawn on the repaired times: B waits longer for its messages, so more of the
  // chart is blocked (whatever the scale).
  await expect.poll(share).toBeGreaterThan(before);
  await page.getByTestId('toggle-repaired-clocks').click();
  await expect(page.getByTestId('toggle-repaired-clocks')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('repaired-clocks-note')).toHaveCount(0);
  // The worked example's clocks need no repair.
  await openTrace(page, WORKED_EXAMPLE);
  await page.getByTestId('toggle-repaired-clocks').click();
  await expect(page.getByTestId('repaired-clocks-note')).toContainText('Nothing to repair');
});

test('the filter bar keeps the events of a pattern or a motif in every view and panel', async ({ page }) => {
  await openTrace(page, WORKED_EXAMPLE);
  // A receive call followed by its arrival: once on A, twice on B.
  await page.getByTestId('event-filter').fill('pattern=recv,arr');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('event-filter-count')).toHaveText('6 events kept');
  await expect(page.getByTestId('chip-events')).toContainText('pattern=recv,arr');
  // The analysis panels' lists keep them too: no send is kept, so the matrix is empty.
  await page.getByTestId('tab-analysis').click();
  await expect(page.getByTestId('analysis-scope')).toContainText('pattern=recv,arr');
  await expect(page.getByTestId('panel-matrix').locator('tbody tr')).toHaveCount(0);
  // A motif; then a mistake, said with its column.
  await page.getByTestId('event-filter').fill('motif=request-response');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('event-filter-count')).toContainText('events kept');
  await page.getByTestId('event-filter').fill('kind=send motif=chain:1');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('event-filter-error')).toContainText('column 11');
  await page.getByTestId('event-filter-clear').click();
  await expect(page.getByTestId('event-filter-count')).toHaveCount(0);
  await expect(page.getByTestId('panel-matrix').locator('tbody tr')).toHaveCount(2);
});

// Issue 46, point 13: the repaired clocks of the Paraver sample swapped the chart for another
// while the old one still had a frame to paint, which read its disposed signals and panicked
// ("RuntimeError: unreachable"), leaving the page half-working.
test('repairing the Paraver sample\'s clocks and visiting every tab raises no page error', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const home = new HomePage(page);
  await home.goto();
  const dir = path.join(TRACES, 'paraver', 'paraver-kernel-qsort_beo3');
  await home.upload([path.join(dir, 'qsort_beo3.prv'), path.join(dir, 'qsort_beo3.pcf')]);
  await page.waitForURL(RUN_URL);
  await new RunPage(page).waitForPaint();
  await page.getByTestId('toggle-repaired-clocks').click();
  await expect(page.getByTestId('repaired-clocks-note')).toContainText('events moved');
  for (const tab of ['tab-hasse', 'tab-topology', 'tab-analysis', 'tab-gantt']) {
    await page.getByTestId(tab).click();
  }
  await page.getByTestId('toggle-repaired-clocks').click();
  await expect(page.getByTestId('toggle-repaired-clocks')).toHaveAttribute('aria-pressed', 'false');
  await new RunPage(page).waitForPaint();
  expect(errors).toEqual([]);
});
