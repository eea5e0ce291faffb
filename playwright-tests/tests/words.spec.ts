import path from 'node:path';
import { expect, test } from '@playwright/test';
import { HomePage, RunPage, openTrace } from '../fixtures/pages';

// The page in the user's words (issue 47 points 7 and 11): no engine identifiers in the panels,
// counts that agree with their nouns, uploads that say what the file is, and `?` on every tab.

const DIAGNOSTICS = path.join(__dirname, '..', 'fixtures', 'diagnostics-of-every-severity.json');
const NAMES = path.join(__dirname, '..', 'fixtures', 'names-with-spaces.json');
// Engine identifiers the page used to show: diagnostic and wait-state kinds, analyses, events.
const IDENTIFIER = /\b(critical_path|parallelism_profile|total_computation|wait_states|execution_time|late_sender|late_receiver|unmatched_send|unmatched_arrival|leave_without_enter|unclosed_region|clock_violation|msg_arr|msg_send|recv_call|proc_init|proc_exit)\b/;

test('the analysis panels say what they mean, not the engine identifiers', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, DIAGNOSTICS);
  await page.getByTestId('tab-analysis').click();
  const diagnostics = page.getByTestId('panel-diagnostics');
  await expect(diagnostics).toContainText('critical path');
  await expect(page.getByTestId('panel-statistics')).toContainText('process start');
  const text = await page.getByTestId('analysis-pane').innerText();
  expect(text).not.toMatch(IDENTIFIER);
  await page.screenshot({ path: test.info().outputPath('analysis-words-1400.png'), fullPage: true });

  await openTrace(page, NAMES);
  await page.getByTestId('tab-analysis').click();
  await expect(page.getByTestId('panel-wait-kinds')).toContainText('Late Sender');
  expect(await page.getByTestId('analysis-pane').innerText()).not.toMatch(IDENTIFIER);
});

test('one node, one process: the counts agree with their nouns', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  const trace = {
    format: 'tracescope', version: 1, name: 'alone',
    nodes: [{ name: 'n0' }], processes: [{ name: 'solo', node: 0 }],
    events: [
      { process: 0, time: 0, kind: 'proc_init' },
      { process: 0, time: 5, kind: 'probe', tag: 1, text: 'hello' },
      { process: 0, time: 10, kind: 'proc_exit' },
    ],
  };
  await home.upload({ name: 'alone.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(trace)) });
  await new RunPage(page).waitForPaint();
  await expect(page.locator('.facts')).toContainText('1 node · 1 process · 3 events · 0 messages');
  await page.getByTestId('tab-topology').click();
  await expect(page.getByTestId('topology-kind')).not.toContainText(/\b1 (nodes|processes|pairs)\b/);
  await expect(page.getByTestId('topology-kind')).toContainText('1 ');
});

test('an empty file and JSON that is not a trace are named as such', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload({ name: 'empty.json', mimeType: 'application/json', buffer: Buffer.from('') });
  await expect(home.alert).toContainText('empty file');
  await home.goto();
  await home.upload({ name: 'foo.json', mimeType: 'application/json', buffer: Buffer.from('{"foo":1}') });
  await expect(home.alert).toContainText('JSON but not a trace');
});

test('? opens a help on every tab, by key and by a named button', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openTrace(page, NAMES);
  const button = page.getByRole('button', { name: 'Help for this view (?)' });
  await page.keyboard.press('?');
  await expect(page.getByTestId('help')).toBeVisible();
  await page.keyboard.press('?');
  await expect(page.getByTestId('help')).toHaveCount(0);
  for (const [tab, says] of [['hasse', 'causal past'], ['topology', 'Click a node'], ['analysis', 'CSV']]) {
    await page.getByTestId(`tab-${tab}`).click();
    await page.keyboard.press('?');
    const help = page.getByTestId('view-help');
    await expect(help, tab).toBeVisible();
    await expect(help, tab).toContainText(says);
    await expect(help, tab).toContainText('time=80ms..120ms');
    if (tab === 'topology') {
      await page.screenshot({ path: test.info().outputPath('topology-help-1400.png') });
      await page.setViewportSize({ width: 800, height: 900 });
      await page.screenshot({ path: test.info().outputPath('topology-help-800.png') });
      await page.setViewportSize({ width: 1400, height: 900 });
    }
    await button.click();
    await expect(help, tab).toHaveCount(0);
  }
});
