const { chromium } = require('playwright-core');
(async () => {
  const [base, run, event, out1, out2] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${base}/runs/${run}`);
  await page.getByTestId('tab-hasse').click();
  await page.waitForTimeout(800);
  const hits = JSON.parse(await page.getByTestId('hasse-canvas').getAttribute('data-hits'));
  const h = hits.find((x) => x[0] === Number(event)) || hits[Math.floor(hits.length / 2)];
  await page.getByTestId('hasse-canvas').click({ position: { x: h[1], y: h[2] } });
  await page.waitForTimeout(300);
  await page.screenshot({ path: out1, fullPage: true });
  await page.getByTestId('tab-gantt').click();
  await page.waitForTimeout(600);
  await page.screenshot({ path: out2, fullPage: true });
  await browser.close();
})();
