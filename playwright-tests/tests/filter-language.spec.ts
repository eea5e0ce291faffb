import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openTrace } from '../fixtures/pages';

// The filter language reads like the page (issue 47 point 4): names with spaces quoted or as
// shown, times with the axis's units, regions and nodes by name, and errors that say what works.

const NAMES = path.join(__dirname, '..', 'fixtures', 'names-with-spaces.json');

async function filter(page: Page, text: string) {
  await page.getByTestId('event-filter').fill(text);
  await page.getByTestId('event-filter-apply').click();
}

test('names with spaces, times with units, regions and nodes filter the events', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, NAMES);
  const count = page.getByTestId('event-filter-count');
  const error = page.getByTestId('event-filter-error');
  // The fixture's task 1 has 8 events, servant[3] 4; 4 events lie in 80..120 ms and 4 in
  // 1.5..2 s; compute loop holds 5 of task 1's events; node "node a" runs task 1 and task 2.
  const cases: [string, number][] = [
    ['process="task 1"', 8],
    ['process=task 1', 8],
    ['process=servant[3]', 4],
    ['time=80ms..120ms', 4],
    ['time=1.5s..2s', 4],
    ['time=90000us..101000µs kind=send', 1],
    ['region="compute loop"', 5],
    ['node="node a"', 12],
    ['process=2 kind=arr', 1],
  ];
  for (const [text, n] of cases) {
    await filter(page, text);
    await expect(error, text).toHaveCount(0);
    await expect(count, text).toHaveText(`${n} events kept`);
  }
  await filter(page, 'process=task');
  await expect(error).toContainText('no process "task" — did you mean "task 1"');
  await expect(error).toContainText('Quote names with spaces');
  await filter(page, 'time=80parsec..1s');
  await expect(error).toContainText('ms');
  await page.screenshot({ path: test.info().outputPath('filter-error-1400.png') });
  await page.getByTestId('event-filter-clear').click();
  // The box offers the keys and the names that complete what is typed, quoted as needed.
  const suggestions = page.getByTestId('event-filter-suggestions').locator('option');
  await page.getByTestId('event-filter').fill('kind=send pro');
  await expect(suggestions).toHaveCount(1);
  await expect(suggestions.first()).toHaveAttribute('value', 'kind=send process=');
  await page.getByTestId('event-filter').fill('kind=send process=ta');
  await expect(suggestions).toHaveCount(2);
  await expect(suggestions.first()).toHaveAttribute('value', 'kind=send process="task 1"');
  await page.getByTestId('event-filter').fill('');
  // Keys go to the page once the box lets go of them.
  await page.getByTestId('event-filter').blur();
  // The help documents the language.
  await page.getByTestId('gantt-canvas').focus();
  await page.keyboard.press('?');
  await expect(page.getByTestId('help-filter')).toContainText('time=80ms..120ms');
  await expect(page.getByTestId('help-filter')).toContainText('region=MPI_Send');
  await page.screenshot({ path: test.info().outputPath('filter-help-1400.png') });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: test.info().outputPath('filter-help-800.png') });
});
