import { expect, test, type Page } from '@playwright/test';
import { COLORS, RUN_URL, RunPage } from '../fixtures/pages';

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
  // The run is over: Stop cannot throw away the trace being stored.
  await expect(page.getByTestId('sim-stop')).toBeDisabled();
  await page.getByTestId('sim-open').click();
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await run.waitForPaint();
  await expect(run.heading).toHaveText('hello on pipe 2');
});

test('a mesh run shows its progress and a bad program shows the assembler line', async ({ page }) => {
  await page.goto('/simulate');
  await expect(page.getByTestId('sim-topology')).toHaveValue('mesh 4x4');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-progress')).toBeVisible();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 16 nodes', {
    timeout: 20_000,
  });
  // An idle network stops before the time it was given, and the page says so.
  await expect(page.getByTestId('sim-status')).toContainText('early: it had 100 ms');
  await expect(page.getByTestId('sim-readout')).toContainText('M instructions/s');
  // How many workers ran it, and how its speed compares with the real network's.
  await expect(page.getByTestId('sim-readout')).toContainText(/on 1 worker · [\d.]+× real time/);
  console.log(`mesh 4x4 in wasm: ${await page.getByTestId('sim-readout').textContent()}`);
  await page.getByTestId('sim-source').fill('ldc 1\n  bogus 3\n');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText('line 2');
  // The editor numbers its lines and marks the one the error names.
  await expect(page.getByTestId('sim-gutter').locator('[data-bad=true]')).toHaveText('2');
});

test('a long run can be stopped, and the next run starts afresh', async ({ page }) => {
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'COMSTIME on one T800 (20,000 iterations)' });
  const source = await page.getByTestId('sim-source').inputValue();
  await page.getByTestId('sim-source').fill(source.replace('N = 20000', 'N = 100000000'));
  await page.getByTestId('sim-until').fill('1000s');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-readout')).toBeVisible();
  await expect(page.getByTestId('sim-stop')).toBeEnabled();
  await page.getByTestId('sim-stop').click();
  await expect(page.getByTestId('sim-status')).toHaveText('Stopped.');
  await expect(page.getByTestId('sim-run')).toBeEnabled();
  await expect(page.getByTestId('sim-stop')).toBeDisabled();
  await page.getByTestId('sim-source').fill(source);
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 1 node', {
    timeout: 20_000,
  });
});

test('emulated instructions per second in WebAssembly (COMSTIME on one node, a 16-node mesh, an FP kernel)', async ({
  page,
}) => {
  // Six runs, and storing the mesh's trace before the last two.
  test.setTimeout(120_000);
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'COMSTIME on one T800 (20,000 iterations)' });
  const comstime = (await page.getByTestId('sim-source').inputValue()).replace('N = 20000', 'N = 100000');
  await page.getByTestId('sim-example').selectOption({ label: 'Mesh 4×4: compute and pass words east' });
  const mesh = (await page.getByTestId('sim-source').inputValue()).replace('ROUNDS = 20', 'ROUNDS = 200');
  // A floating-point kernel for the T800's FPU (a Horner step, a division, a square root).
  const fs = await import('node:fs');
  const path = await import('node:path');
  const fpKernel = fs
    .readFileSync(path.join(__dirname, '..', '..', 'simulator-wasm', 'programs', 'fp-kernel.s'), 'utf8')
    .replace('ROUNDS = 200000', 'ROUNDS = 50000');
  const rates: [string, number][] = [];
  // The page's worker stays between runs: the first run includes compiling the emulator
  // and the engine's optimising it, later runs do not.
  for (const [what, source, topology, nodes, tracing, minimum] of [
    ['COMSTIME, first run, tracing off', comstime, 'single', 1, false, 100000 * 59],
    ['COMSTIME, tracing off', comstime, 'single', 1, false, 100000 * 59],
    ['mesh 4x4, tracing off', mesh, 'mesh 4x4', 16, false, 8_000_000],
    ['mesh 4x4, tracing on', mesh, 'mesh 4x4', 16, true, 8_000_000],
    ['COMSTIME, tracing on', comstime, 'single', 1, true, 100000 * 59],
    ['FP kernel (T800 FPU), tracing off', fpKernel, 'single', 1, false, 3_000_000],
  ] as const) {
    await expect(page.getByTestId('sim-run')).toBeEnabled({ timeout: 30_000 });
    await page.getByTestId('sim-source').fill(source);
    await page.getByTestId('sim-topology').fill(topology);
    await page.getByTestId('sim-until').fill('10s');
    await page.getByTestId('sim-tracing').setChecked(tracing);
    await page.getByTestId('sim-run').click();
    // The readout is final once the run has finished (storing the trace afterwards is not
    // part of the measurement).
    await expect(page.getByTestId('sim-status')).toContainText(new RegExp(`Finished \\(idle\\) on ${nodes} nodes?`), {
      timeout: 25_000,
    });
    const readout = (await page.getByTestId('sim-readout').textContent()) ?? '';
    const match = readout.match(/([\d,]+) instructions · ([\d.]+) M instructions\/s/);
    expect(match).not.toBeNull();
    expect(Number(match![1].replaceAll(',', ''))).toBeGreaterThan(minimum);
    rates.push([what, Number(match![2])]);
  }
  for (const [what, rate] of rates) {
    test.info().annotations.push({ type: `wasm M instructions/s, ${what}`, description: String(rate) });
    console.log(`${what} in wasm: ${rate} M instructions/s`);
    expect(rate).toBeGreaterThan(0);
  }
});

test('the warm-up ends once the optimised code runs and its rate has levelled off', async ({ page }) => {
  await page.goto('/simulate');
  // Rates in instructions per millisecond, as the warm-up measures them slice by slice.
  const answers = await page.evaluate(async () => {
    const { switched } = await import('/sim-slices.js');
    const baseline = [4, 8, 17, 24, 25, 26, 24, 25, 27, 25, 24, 26];
    return {
      jumped: switched([...baseline, 98, 101, 100, 99, 102, 100]),
      stillBaseline: switched([...baseline, ...baseline]),
      // A busy host can halve a machine's speed and give it back: not the switch.
      hostSwing: switched([...baseline, 50, 52, 51, 49, 50, 51]),
      stillRising: switched([...baseline, 80, 82, 81, 100, 101, 99]),
      oneSlowSlice: switched([...baseline, 98, 101, 40, 99, 102, 100]),
      tooFewToTell: switched([25, 26, 100, 101, 100, 99, 102, 100]),
    };
  });
  expect(answers).toEqual({
    jumped: 100,
    stillBaseline: 0,
    hostSwing: 0,
    stillRising: 0,
    oneSlowSlice: 0,
    tooFewToTell: 0,
  });
});

test('a program reads the keys typed for it and its files download', async ({ page }) => {
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'Keys and files through the iserver' });
  await page.getByTestId('sim-keys').fill('abc\\rleft over');
  await page.getByTestId('sim-tracing').uncheck();
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-output')).toHaveText('you typed: abc');
  await expect(page.getByTestId('sim-status')).toContainText('exited 0');
  const link = page.getByTestId('sim-files').getByRole('link', { name: 'answer.txt (3 bytes)' });
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(download.suggestedFilename()).toBe('answer.txt');
  const fs = await import('node:fs');
  expect(fs.readFileSync((await download.path())!, 'utf8')).toBe('abc');
});

test('a PPM image the program writes is shown', async ({ page }) => {
  await page.goto('/simulate');
  await page.getByTestId('sim-example').selectOption({ label: 'Keys and files through the iserver' });
  // The example writes the line it reads to a file: name it .ppm and type a 2×1 image.
  const source = (await page.getByTestId('sim-source').inputValue()).replaceAll('"answer.txt"', '"answer.ppm"');
  await page.getByTestId('sim-source').fill(source);
  await page.getByTestId('sim-keys').fill('P6 2 1 255 \\xff\\x00\\x00\\x00\\x00\\xff\\r');
  await page.getByTestId('sim-tracing').uncheck();
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-files')).toContainText('answer.ppm (17 bytes)');
  const image = page.getByTestId('sim-image');
  await expect(image).toBeVisible();
  // The PNG decodes to the two pixels: red, then blue.
  const pixels = await image.evaluate(async (img: HTMLImageElement) => {
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    const ctx = c.getContext('2d')!;
    ctx.drawImage(img, 0, 0);
    return [c.width, c.height, ...Array.from(ctx.getImageData(0, 0, 2, 1).data)];
  });
  expect(pixels).toEqual([2, 1, 255, 0, 0, 255, 0, 0, 255, 255]);
});

test('a demo from the gallery runs in the page with its progress and lands in its Gantt chart', async ({
  page,
}) => {
  await page.goto('/simulate');
  await page.locator('[data-demo="sieve"]').click();
  await expect(page.getByTestId('sim-about')).toContainText('pipeline');
  await expect(page.getByTestId('sim-topology')).toHaveValue('pipe 8');
  await page.getByTestId('sim-nodes').selectOption({ label: '4 (pipe 4)' });
  await expect(page.getByTestId('sim-topology')).toHaveValue('pipe 4');
  await expect(page.getByTestId('sim-check')).toContainText('Compiles');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-progress')).toBeVisible();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 4 nodes', {
    timeout: 30_000,
  });
  console.log(`demo:sieve on pipe 4 in the page: ${await page.getByTestId('sim-readout').textContent()}`);
  await expect(page.getByTestId('sim-open')).toBeVisible();
  // A second run can be compared with the first.
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-compare')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('sim-open-all').click();
  await page.waitForURL(RUN_URL);
  const run = new RunPage(page);
  await run.waitForPaint();
  await expect(run.heading).toHaveText('demo:sieve on pipe 4');
});

/** Runs gallery demo `name` on its default network and opens its trace where it teaches. */
async function runDemoToItsLesson(page: Page, name: string): Promise<RunPage> {
  await page.goto('/simulate');
  await page.locator(`[data-demo="${name}"]`).click();
  await expect(page.getByTestId('sim-check')).toContainText('Compiles');
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('The trace is stored', { timeout: 60_000 });
  // The "what to look for" text offers the view too.
  await expect(page.getByTestId('sim-lesson')).toBeVisible();
  await page.getByTestId('sim-open').click();
  await page.waitForURL(/\/v\/[A-Za-z0-9_-]+$/);
  const run = new RunPage(page);
  await run.waitForPaint();
  return run;
}

/** The CSS point of the first canvas pixel of colour `rgb` at least `below` CSS pixels down. */
async function pointOfColour(run: RunPage, rgb: readonly number[], below: number) {
  return run.canvas.evaluate(
    (el, [rgb, below]) => {
      const canvas = el as HTMLCanvasElement;
      const ctx = canvas.getContext('2d');
      if (!ctx) return null;
      const scale = canvas.width / canvas.getBoundingClientRect().width;
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      const [r, g, b] = rgb as number[];
      for (let y = Math.ceil((below as number) * scale); y < canvas.height; y++) {
        for (let x = 0; x < canvas.width; x++) {
          const i = 4 * (y * canvas.width + x);
          if (data[i] === r && data[i + 1] === g && data[i + 2] === b) {
            const box = canvas.getBoundingClientRect();
            return { x: box.x + (x + 1) / scale, y: box.y + (y + 1) / scale };
          }
        }
      }
      return null;
    },
    [rgb, below] as const,
  );
}

test('the farm demo opens on its servants, unfolded and visibly idle, with no message arrows over them', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = await runDemoToItsLesson(page, 'raytracer');
  // The farmer and eight servants, one row each under its node's header.
  await expect(page.getByTestId('toggle-processes')).toContainText('Processes (9/');
  await expect(page.getByTestId('gantt-canvas')).toHaveAttribute('data-rows', '17');
  await expect(page.getByTestId('toggle-messages')).toHaveAttribute('aria-pressed', 'false');
  await page.screenshot({ path: test.info().outputPath('raytracer-lesson.png') });
  const counts = await run.pixelCounts();
  console.log(`the farm's lesson view: ${JSON.stringify(counts)}`);
  // The servants wait (blocked or ready) for a large part of the run: their waiting shows.
  expect(counts.computing).toBeGreaterThan(0);
  expect(counts.blocked + counts.ready).toBeGreaterThan(counts.computing / 10);
  expect(counts.message).toBe(0);
});

test('COMSTIME opens on a few iterations of its four processes, and a blocked bar names its channel', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = await runDemoToItsLesson(page, 'comstime');
  // prefix, delta and the two branches of its PAR, successor, consumer, under their node.
  await expect(page.getByTestId('toggle-processes')).toContainText('Processes (6/');
  await expect(page.getByTestId('gantt-canvas')).toHaveAttribute('data-rows', '7');
  await page.screenshot({ path: test.info().outputPath('comstime-lesson.png') });
  const counts = await run.pixelCounts();
  console.log(`COMSTIME's lesson view: ${JSON.stringify(counts)}`);
  expect(counts.blocked).toBeGreaterThan(counts.computing);
  expect(counts.ready).toBeGreaterThan(0);
  const blocked = await pointOfColour(run, COLORS.blocked, 30);
  expect(blocked).not.toBeNull();
  await page.mouse.click(blocked!.x, blocked!.y);
  const popup = page.getByTestId('popup');
  await expect(popup).toContainText('blocked');
  await expect(popup).toContainText(/blocked in an (input|output) on channel 0x[0-9a-f]{8}/);
});

test('an occam syntax error marks its line in the editor with the message', async ({ page }) => {
  await page.goto('/simulate');
  await page.locator('[data-demo="matmul"]').click();
  await expect(page.getByTestId('sim-check')).toContainText('Compiles');
  const source = await page.getByTestId('sim-source').inputValue();
  const lines = source.split('\n');
  const at = lines.findIndex((l) => l.trim() === 'c := 0');
  lines[at] = lines[at].replace('c := 0', 'c := := 0');
  await page.getByTestId('sim-source').fill(lines.join('\n'));
  await expect(page.getByTestId('sim-check')).toContainText(`line ${at + 1}, column`);
  await expect(page.getByTestId('sim-gutter').locator('[data-bad=true]')).toHaveText(String(at + 1));
  // Running it says the same.
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-error')).toContainText(`occam, line ${at + 1}`);
  // A thousand-line program compiles in the page; the time is measured.
  const long = ['INT x:', 'SEQ', '  x := 0'];
  for (let k = 0; long.length < 1000; k++) long.push(`  x := (x + ${k}) \\ 1000`);
  await page.getByTestId('sim-source').fill(long.join('\n'));
  await expect(page.getByTestId('sim-check')).toContainText('Compiles');
  console.log(`a 1,000-line occam program: ${await page.getByTestId('sim-check').textContent()}`);
});

test('a run shared among 1, 2 and 4 Web Workers gives the same trace, byte for byte', async ({ page }) => {
  test.setTimeout(120_000);
  // The server makes the page cross-origin isolated, so its workers may share memory.
  const res = await page.goto('/simulate');
  expect(res?.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(res?.headers()['cross-origin-embedder-policy']).toBe('require-corp');
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await expect(page.getByTestId('sim-topology')).toHaveValue('mesh 4x4');
  const traces: Buffer[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/runs') {
      const body = request.postDataBuffer();
      if (body) traces.push(body);
    }
  });
  for (const [k, workers] of ['1', '2', '4'].entries()) {
    await page.getByTestId('sim-workers').selectOption(workers);
    await page.getByTestId('sim-run').click();
    await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 16 nodes', {
      timeout: 30_000,
    });
    const noun = workers === '1' ? 'worker' : 'workers';
    await expect(page.getByTestId('sim-readout')).toContainText(`on ${workers} ${noun}`);
    await expect.poll(() => traces.length, { timeout: 15_000 }).toBe(k + 1);
    console.log(`mesh 4x4 on ${workers} ${noun}: ${await page.getByTestId('sim-readout').textContent()}`);
  }
  expect(traces[0].length).toBeGreaterThan(10_000);
  expect(traces[1].equals(traces[0])).toBe(true);
  expect(traces[2].equals(traces[0])).toBe(true);
});

test('picking two or more workers starts their helpers before the run, which takes them', async ({ page }) => {
  await page.goto('/simulate');
  await expect(page.getByTestId('sim-topology')).toHaveValue('mesh 4x4');
  // Dedicated workers the page's worker started (Playwright lists nested ones too).
  const helpers = () => page.workers().filter((w) => new URL(w.url()).pathname === '/sim-part.js').length;
  expect(helpers()).toBe(0);
  await page.getByTestId('sim-workers').selectOption('2');
  await expect.poll(helpers, { timeout: 10_000 }).toBe(1);
  await page.getByTestId('sim-run').click();
  await expect(page.getByTestId('sim-status')).toContainText('Finished (idle) on 16 nodes', { timeout: 30_000 });
  await expect(page.getByTestId('sim-readout')).toContainText('on 2 workers');
  expect(helpers()).toBe(1);
  // One worker needs no helper, and the one there stays for the next shared run.
  await page.getByTestId('sim-workers').selectOption('1');
  await page.getByTestId('sim-workers').selectOption('4');
  await expect.poll(helpers, { timeout: 10_000 }).toBe(3);
});
