import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { HomePage, RUN_URL, RunPage, WORKED_EXAMPLE } from '../fixtures/pages';

// The Hasse (happened-before) view (issue 18): linked to the Gantt chart through the run's
// workspace, with the causal past and future of a selected event, dependence queries, a
// permalink that reopens it, and clock violations on the physical-time axis.

/** The Hasse canvas's marks: [event, x, y] in CSS pixels of the canvas. */
async function hits(page: Page): Promise<[number, number, number][]> {
  const canvas = page.getByTestId('hasse-canvas');
  // The marks once the first frame is drawn (an empty or missing attribute is no frame yet).
  const read = async () => {
    const text = (await canvas.getAttribute('data-hits')) ?? '';
    return text.startsWith('[') ? (JSON.parse(text) as [number, number, number][]) : [];
  };
  await expect.poll(async () => (await read()).length).toBeGreaterThan(0);
  return read();
}

async function clickEvent(page: Page, event: number) {
  const mark = (await hits(page)).find((h) => h[0] === event);
  expect(mark, `event ${event} is drawn`).toBeTruthy();
  await page.getByTestId('hasse-canvas').click({ position: { x: mark![1], y: mark![2] } });
}

async function workspaceState(page: Page) {
  return JSON.parse((await page.getByTestId('workspace').getAttribute('data-state')) ?? '{}');
}

test('a vertex clicked in the Hasse view is the event selected in the Gantt chart, with its causal past', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await page.waitForURL(RUN_URL);
  await new RunPage(page).waitForPaint();
  await page.getByTestId('tab-hasse').click();
  // Event 8 is B's first arrival (tick 33): its causal past is A's start and send, and B's
  // start and receive call (4 events); its future is everything after it on B (send, receive
  // call, arrival, exit) and A's arrival, send and exit from tick 48 on (4 + 3 = 7 events).
  await clickEvent(page, 8);
  const canvas = page.getByTestId('hasse-canvas');
  await expect(canvas).toHaveAttribute('data-pre', '4');
  await expect(canvas).toHaveAttribute('data-post', '7');
  await expect(page.getByTestId('hasse-stats')).toContainText('causal past 4 events');
  expect((await workspaceState(page)).selection).toEqual({ type: 'event', index: 8 });
  // Its details: as the Gantt chart's pop-up, with its logical times (the collapsed start of
  // B is layer 0, A's send layer 1) and its vector clock (A's start and send, B's first three).
  const details = page.getByTestId('hasse-popup');
  await expect(details).toContainText('Message arrival on B');
  await expect(details).toContainText('logical time: layer 2 · Lamport 3');
  await expect(details).toContainText('vector clock: {A: 2, B: 3}');

  // The Gantt chart shows the same event selected, with its pop-up.
  await page.getByTestId('tab-gantt').click();
  await expect(page.getByTestId('popup')).toBeVisible();
  await expect(page.getByTestId('popup')).toContainText('Message arrival on B');

  // The permalink reopens the Hasse view, its axis, the window and the selection.
  await page.getByTestId('tab-hasse').click();
  await page.getByTestId('hasse-axis-lamport').click();
  const before = await workspaceState(page);
  await page.getByTestId('share').click();
  const link = await page.getByTestId('share-link').getAttribute('href');
  await page.goto(link!);
  await expect(page.getByTestId('hasse-canvas')).toBeVisible();
  await expect(page.getByTestId('gantt-pane')).toBeHidden();
  const after = await workspaceState(page);
  expect(after.kind).toBe('hasse');
  expect(after.window).toEqual(before.window);
  expect(after.selection).toEqual(before.selection);
  expect(after.hasse_axis).toBe('lamport');
  await expect(page.getByTestId('hasse-axis-lamport')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('hasse-canvas')).toHaveAttribute('data-pre', '4');
});

test('dependence queries show their errors and their instances', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await page.waitForURL(RUN_URL);
  await page.getByTestId('tab-hasse').click();
  await hits(page);
  const query = page.getByTestId('hasse-query');
  await query.fill('DEPENDENCE first IS msg_send{1} ON PROCES A -> msg_arr{1} ON PROCESS B END');
  await page.getByTestId('hasse-query-run').click();
  await expect(page.getByTestId('hasse-query-error')).toContainText('line 1, column 36');
  await query.fill('DEPENDENCE first IS msg_send{1} ON PROCESS A -> msg_arr{1} ON PROCESS B END');
  await page.getByTestId('hasse-query-run').click();
  await expect(page.getByTestId('hasse-instances')).toContainText('first: holds (1 of 1 instances hold)');
  await page.getByTestId('hasse-instances').getByRole('button').first().click();
  expect((await workspaceState(page)).selection).toEqual({ type: 'event', index: 1 });

  // The workspace's event filter, applied to every view: only the three sends keep their marks here.
  await page.getByTestId('event-filter').fill('kind=send procss=A');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('event-filter-error')).toContainText('column 11');
  await page.getByTestId('event-filter').fill('kind=send');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('hasse-canvas')).toHaveAttribute('data-kept', '3');
  expect((await workspaceState(page)).event_filter).toBe('kind=send');
  await page.getByTestId('event-filter').fill('');
  await page.getByTestId('event-filter-apply').click();
  await expect(page.getByTestId('hasse-canvas')).toHaveAttribute('data-kept', '12');

  // Motifs: on the worked example A's first request is answered, and so is B's reply to it.
  await page.getByText('Motif search').click();
  await page.getByTestId('hasse-motif').fill('request-response');
  await page.getByTestId('hasse-motif-run').click();
  await expect(page.getByTestId('hasse-motif-count')).toHaveText('2 found');
  await page.getByTestId('hasse-motif').fill('chain 3');
  await page.getByTestId('hasse-motif-run').click();
  await expect(page.getByTestId('hasse-motif-count')).toHaveText('1 found');

  // The diagram as shown exports as SVG: its process labels and its arrows are in it.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('hasse-export').click(),
  ]);
  expect(download.suggestedFilename()).toBe('hasse.svg');
  const svg = fs.readFileSync((await download.path())!, 'utf8');
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(svg).toContain('>B</text>');
  expect((svg.match(/<polygon/g) ?? []).length).toBeGreaterThan(5);
});

test('on physical time the Paraver sample shows its two clock violations in the fault colour', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('sample-paraver').click();
  await page.waitForURL(RUN_URL);
  await page.getByTestId('tab-hasse').click();
  await hits(page);
  await page.getByTestId('hasse-axis-physical').click();
  const canvas = page.getByTestId('hasse-canvas');
  await expect(canvas).toHaveAttribute('data-backwards', '2');
  // Fault-coloured pixels (#c2185b, or its anti-aliased shades on white) are on the canvas;
  // on the layer axis the same two edges are drawn too.
  const fault = await canvas.evaluate((el) => {
    const c = el as HTMLCanvasElement;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
      if (r > 150 && g < 140 && b > 60 && b < 170 && r - g > 80) n++;
    }
    return n;
  });
  expect(fault).toBeGreaterThan(10);
});

test('a run drawn by the server shows its Hasse diagram from the server, and clicks select', async ({ page }) => {
  const home = new HomePage(page);
  await home.goto();
  await home.upload(WORKED_EXAMPLE);
  await page.waitForURL(RUN_URL);
  const answers: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/hasse?')) answers.push(r.url());
  });
  await page.goto(`${page.url()}?detail=server`);
  await page.getByTestId('tab-hasse').click();
  await expect(page.getByTestId('hasse-remote')).toBeVisible();
  await clickEvent(page, 8);
  expect(answers.length).toBeGreaterThan(0);
  expect((await workspaceState(page)).selection).toEqual({ type: 'event', index: 8 });
  // Its causal past and future come from the server too.
  await expect(page.getByTestId('hasse-canvas')).toHaveAttribute('data-pre', '4');
  await expect(page.getByTestId('hasse-canvas')).toHaveAttribute('data-post', '7');
  // 12 vertices: the worked example with P1's start and first receive call collapsed.
  await expect(page.getByTestId('hasse-stats')).toContainText('12 vertices');
});
