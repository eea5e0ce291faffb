import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openTrace } from '../fixtures/pages';

// CSV for spreadsheets (issue 47 point 6): every table's CSV gives one number per cell in base
// units (seconds, bytes, percent as a number) with the unit in the heading, packed cells split
// into columns, while the page keeps its readable units.

const NAMES = path.join(__dirname, '..', 'fixtures', 'names-with-spaces.json');

/** RFC 4180 fields. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += c;
  }
  if (field !== '' || row.length > 0) { row.push(field); rows.push(row); }
  return rows;
}

const UNIT = /\((s|%|bytes|ticks)\)$/;
// A number written with a unit, as the page shows it: a spreadsheet reads it as text.
const WITH_UNIT = /^[−+-]?\d[\d.]*\s*(ns|µs|us|ms|s|%|kB|MB|GB|B|bytes|ticks)$/;
const isNumber = (s: string) => s.trim() !== '' && Number.isFinite(Number(s));

/** Downloads the CSV of each of `ids` from `page`. Chromium stops a tab's downloads after ten
 * or so in a row, so every eighth a fresh tab opens the run again at its analysis. */
async function downloadAll(page: Page, ids: string[]) {
  const files: [string, string[][]][] = [];
  let tab = page;
  for (let i = 0; i < ids.length; i++) {
    if (i > 0 && i % 8 === 0) {
      tab = await page.context().newPage();
      await tab.setViewportSize({ width: 1400, height: 900 });
      await tab.goto(page.url());
      await tab.getByTestId('tab-analysis').click();
    }
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.getByTestId(ids[i]).click()]);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    fs.writeFileSync(test.info().outputPath(download.suggestedFilename()), text);
    files.push([download.suggestedFilename(), parseCsv(text)]);
  }
  return files;
}

test('every CSV download has numbers in base units with the unit in the heading', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, NAMES);
  await page.getByTestId('tab-analysis').click();
  await expect(page.getByTestId('panel-statistics')).toContainText('computing');
  await expect(page.getByTestId('panel-matrix').locator('tbody tr')).toHaveCount(2);
  await page.getByTestId('what-if').locator('summary').click();
  await page.getByTestId('what-if-preset').selectOption('transit=0');
  await page.getByTestId('what-if-run').click();
  await expect(page.getByTestId('panel-what-if')).toContainText('Predicted execution time');
  // The page keeps its readable units.
  await expect(page.getByTestId('panel-statistics')).toContainText(' ms');
  // The what-if tables come first, so the first tab (where the replay ran) downloads them.
  const buttons = page.locator('button[data-testid^="csv-"]');
  const ids: string[] = [];
  for (let i = 0; i < (await buttons.count()); i++) {
    if (await buttons.nth(i).isVisible()) ids.push((await buttons.nth(i).getAttribute('data-testid'))!);
  }
  expect(ids.slice(0, 2)).toEqual(['csv-what-if', 'csv-what-if-processes']);
  const files = await downloadAll(page, ids);
  expect(files.length).toBeGreaterThanOrEqual(10);
  const units = new Set<string>();
  for (const [name, rows] of files) {
    const [header, ...body] = rows;
    header.forEach((h, k) => {
      const unit = h.match(UNIT);
      if (unit) units.add(unit[1]);
      for (const row of body) {
        const cell = row[k] ?? '';
        expect(cell, `${name}: ${h} = ${cell}`).not.toMatch(WITH_UNIT);
        expect(cell, `${name}: ${h} = ${cell}`).not.toContain('(max ');
        if (unit && cell !== '') expect(isNumber(cell), `${name}: ${h} = ${cell}`).toBe(true);
      }
    });
    // A name / value table carries each row's unit beside its name.
    for (const row of body) {
      const unit = row[0].match(UNIT);
      if (unit && header.length === 2) {
        units.add(unit[1]);
        expect(isNumber(row[1]), `${name}: ${row[0]} = ${row[1]}`).toBe(true);
      }
    }
  }
  expect(files.filter(([, rows]) => rows.length > 1).length).toBeGreaterThanOrEqual(10);
  // Seconds, percent and bytes all occur, so the checks above checked something.
  expect([...units].sort()).toEqual(expect.arrayContaining(['%', 'bytes', 's']));
  // Every weight says its unit: seconds, or WCPA's processor time in ticks.
  for (const [name, rows] of files) {
    for (const h of rows[0].filter((h) => h.startsWith('Weight'))) expect(h, name).toMatch(/\((s|ticks|processor-ticks)\)$/);
  }
  // The statistics' packed quartiles are four columns of seconds.
  const stats = files.find(([n]) => n === 'statistics.csv')![1];
  expect(stats[0]).toEqual(expect.arrayContaining(['Duration Q1 (s)', 'Duration median (s)', 'Duration Q3 (s)', 'Duration max (s)']));
  // The matrix: transit in seconds, bytes as the messages' sizes.
  const matrix = files.find(([n]) => n === 'matrix.csv')![1];
  expect(matrix[0]).toEqual(['Sender', 'Receiver', 'Messages', 'Bytes', 'Transit (s)']);
  expect(matrix.slice(1).map((r) => [r[0], Number(r[3]), Number(r[4])])).toEqual([
    ['task 1', 4096, 0.01],
    ['task 1', 1024, 0.1],
  ]);
});
