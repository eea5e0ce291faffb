const { chromium } = require('playwright-core');
(async () => {
  const [base, run, out, axis] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-gpu','--disable-background-networking','--disable-component-update','--disable-sync','--no-first-run'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', m => { if (m.type() === 'error') console.log('console:', m.text()); });
  await page.goto(`${base}/runs/${run}`);
  await page.getByTestId('tab-hasse').click();
  await page.waitForTimeout(800);
  if (axis) { await page.getByTestId(`hasse-axis-${axis}`).click(); await page.waitForTimeout(400); }
  const box = await page.getByTestId('hasse-canvas').boundingBox();
  console.log('canvas', JSON.stringify(box));
  console.log('stats', await page.getByTestId('hasse-stats').textContent());
  await page.screenshot({ path: out, fullPage: true });
  await browser.close();
})();
