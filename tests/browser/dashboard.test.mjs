// The dashboard in real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): start the demo job through the form, watch it run to done, see the
// plots drawn and the relevant sites table filled, and keep a screenshot.
// Run by tests/integration/browser.sh, which starts PostgreSQL, the replay web and
// `sitescout serve`. Env: SITESCOUT_URL, SITESCOUT_JOB (a job body), SCREENSHOT (png) for
// the job; SITESCOUT_EXPLAIN_JOB (the id of a finished job with a border left) for the
// site page and the border view; SITESCOUT_TOKEN_URL, SITESCOUT_TOKEN for a server run
// with --token.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {chromium} from 'playwright-core';

const URL_ = process.env.SITESCOUT_URL;
const SCREENSHOT = process.env.SCREENSHOT || 'dashboard.png';

// playwright starts Chromium headless on a new, empty, temporary profile.
const launch = () => chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});

// The API's answer, as the page gets it (no token: this server has none).
const apiGet = async (path) => {
  const r = await fetch(`${URL_}${path}`);
  assert.equal(r.status, 200, `GET ${path}`);
  return r.json();
};

test('start the demo job from the form and watch it finish', {timeout: 150_000, skip: !URL_}, async () => {
  const JOB = JSON.parse(readFileSync(process.env.SITESCOUT_JOB, 'utf8'));
  const browser = await launch();
  try {
    const page = await browser.newPage({viewport: {width: 1360, height: 1100}});
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    // (The one 422 below is wanted: the browser logs it as a failed load.)
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 422/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    // Nothing but the server under test: the crawl's hosts are links, never loaded.
    await page.route('**/*', (route) =>
      route.request().url().startsWith(URL_) ? route.continue() : route.abort());

    await page.goto(`${URL_}/`);
    await page.waitForSelector('#view-home:not([hidden])');
    assert.equal(await page.title(), 'sitescout: jobs');

    // A bad parameter: the API's error shows next to the form, naming the field.
    await page.fill('#f-topic', JOB.topic);
    await page.fill('#f-relevant', JOB.relevant_sites.join('\n'));
    await page.fill('#f-other', JOB.other_sites.join('\n'));
    await page.fill('#f-start', JOB.start_sites.join('\n'));
    await page.fill('#p-p_threshold', '2');
    await page.click('#submit');
    await page.waitForSelector('#form-error:not([hidden])');
    assert.match(await page.textContent('#form-error'), /p_threshold/);
    assert.equal(await page.getAttribute('#p-p_threshold', 'aria-invalid'), 'true');

    // The demo job, as the user would type it.
    await page.fill('#p-p_threshold', '');
    for (const [k, v] of Object.entries(JOB.params || {})) await page.fill(`#p-${k}`, String(v));
    await page.click('#submit');
    await page.waitForURL(/#\/jobs\/\d+$/);
    const id = page.url().match(/#\/jobs\/(\d+)$/)[1];
    await page.waitForSelector('#view-job:not([hidden])');
    await page.waitForFunction((t) => document.querySelector('#j-topic').textContent === t, JOB.topic);
    // The demo job has examples enough (15 relevant, 40 other): no warning (job/jobwarn.h).
    assert.equal(await page.isHidden('#j-warnings'), true, 'the demo job is not warned');

    // It runs, updating without a reload; pause and resume it with the buttons.
    const stateIs = (...want) => page.waitForFunction(
      (w) => w.includes(document.querySelector('#j-state').dataset.state), want, {timeout: 60_000});
    await stateIs('crawling', 'done');
    if (await page.getAttribute('#j-state', 'data-state') === 'crawling') {
      await page.click('#b-pause');
      await stateIs('paused', 'done'); // it may end before it pauses
      if (await page.getAttribute('#j-state', 'data-state') === 'paused') {
        assert.ok(await page.isEnabled('#b-resume'), 'a paused job can be resumed');
        // Start websites added while it waits: a bad one refused, a good one read next.
        assert.ok(await page.isVisible('#seeds-form'), 'a paused job takes seeds');
        await page.fill('#f-seeds', 'ftp://seeded.example.org/');
        await page.click('#b-seeds');
        await page.waitForFunction(() => /^Not added: /.test(document.querySelector('#seeds-msg').textContent),
          null, {timeout: 10_000});
        await page.fill('#f-seeds', 'http://seeded.example.org/');
        await page.click('#b-seeds');
        await page.waitForFunction(() => /Read next: seeded\.example\.org/.test(
          document.querySelector('#seeds-msg').textContent), null, {timeout: 10_000});
        console.log('# a seed added to the paused job from the page');
        await page.click('#b-resume');
        await stateIs('crawling', 'done');
        console.log('# paused and resumed with the buttons');
      }
    }
    const seen = new Set();
    const deadline = Date.now() + 90_000;
    let state = '';
    while (Date.now() < deadline) {
      state = (await page.getAttribute('#j-state', 'data-state')) || '';
      seen.add(state);
      if (state === 'done' || state === 'failed') break;
      await page.waitForTimeout(250);
    }
    assert.equal(state, 'done', `job ${id} ended ${state}: ${await page.textContent('#j-error')}`);
    console.log(`# job ${id}: states seen ${[...seen].join(', ')}`);
    assert.match(await page.textContent('#j-stop'), /border empty/);
    if (JOB.params && JOB.params.max_pages) {
      const v = Number(await page.getAttribute('#progress-max_pages', 'value'));
      assert.ok(v > 0 && v < 1, `progress toward max_pages: ${v}`);
    }

    // Both plots are uPlot charts with drawn canvases and data.
    for (const chart of ['#chart-harvest', '#chart-pprs']) {
      const box = await page.locator(`${chart} .uplot canvas`).boundingBox();
      assert.ok(box && box.width > 200 && box.height > 100, `${chart} has a canvas: ${JSON.stringify(box)}`);
    }
    // Wait for the last poll's samples (the page polls every second while running).
    await page.waitForFunction(() => jobView.data[0].length >= 3 &&
      jobView.data[0].at(-1) === Number(document.querySelector('#j-pages').textContent.replace(/,/g, '')));
    console.log(`# ${await page.evaluate(() => jobView.data[0].length)} samples plotted`);
    const pages = Number((await page.textContent('#j-pages')).replace(/,/g, ''));
    assert.ok(pages > 0, `pages downloaded: ${pages}`);
    // The canvas has ink on it: some pixels are not blank.
    const inked = await page.$eval('#chart-harvest canvas', (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    assert.ok(inked > 1000, `the harvest chart is drawn (${inked} pixels)`);

    // The relevant sites table: a row per relevant website the crawl found (as the API
    // lists them; the demo job finds 7-15), hosts linked to their site pages.
    const found = await apiGet(`/api/jobs/${id}/sites?relevant=true&role=discovered&limit=1000`);
    assert.ok(found.total >= 1, `the demo job found ${found.total} relevant websites`);
    await page.waitForFunction((n) => document.querySelectorAll('#sites-table tbody tr').length === n,
                               Math.min(found.total, 1000), {timeout: 10_000});
    const rows = await page.locator('#sites-table tbody tr').count();
    const relevant = Number((await page.textContent('#j-relevant')).replace(/,/g, ''));
    // The job's own start sites are shown apart, relevant or not, with their verdicts.
    const starts = await apiGet(`/api/jobs/${id}/sites?role=start&limit=1000`);
    const startRelevant = starts.sites.filter((x) => x.relevant).length;
    assert.equal(rows + startRelevant, relevant, 'a row per relevant site found, start sites apart');
    if (starts.total) {
      assert.equal(await page.locator('#start-table tbody tr').count(), starts.total, 'a row per start site');
      assert.match(await page.textContent('#start-table tbody'), /relevant/);
    }
    for (const tr of await page.locator('#sites-table tbody tr a.site').allTextContents())
      assert.ok(!starts.sites.some((x) => x.host === tr), `start site ${tr} among the sites found`);
    // The least sure verdicts (relevant or not, confidence nearest 1/2), as the API lists
    // them, each with its ✓ and ✗.
    const unsure = await apiGet(`/api/jobs/${id}/sites?role=discovered&order=unsure&limit=10`);
    assert.ok(unsure.sites.length >= 2, `least sure verdicts: ${unsure.sites.length}`);
    await page.waitForFunction((n) => document.querySelectorAll('#unsure-table tbody tr').length === n,
                               unsure.sites.length, {timeout: 10_000});
    assert.deepEqual(await hostsIn(page, '#unsure-table'), unsure.sites.map((x) => x.host));
    const margins = unsure.sites.map((x) => Math.abs(x.confidence - 0.5));
    assert.ok(margins.every((m, i) => i === 0 || margins[i - 1] <= m), `nearest 1/2 first: ${margins}`);
    assert.equal(await page.locator('#unsure-table tbody tr .label-btns button').count(),
                 2 * unsure.sites.length, 'a ✓ and a ✗ on each');
    // "relevant sites, all" says how it splits into the sites found and the start sites.
    await page.waitForFunction(() => document.querySelector('#j-relevant-split').textContent !== '');
    assert.equal(await page.textContent('#j-relevant-split'),
                 `${rows} found + ${startRelevant} start ${startRelevant === 1 ? 'site' : 'sites'}`);
    assert.match(await page.textContent('#sites-h'), /^Relevant sites found by the crawl/);
    // Pages per second, the border's size and the fetches by outcome, as the API has them.
    const jobNow = await apiGet(`/api/jobs/${id}`);
    assert.match(await page.textContent('#j-rate'), /^\d+(\.\d)?/);
    assert.equal(await page.textContent('#j-border'), `${jobNow.border_sites} sites`);
    assert.match(await page.textContent('#j-fetches'), new RegExp(`ok ${jobNow.fetches.ok.toLocaleString('en')}`));
    // The plots: y axes titled, the window stated, and the legend showing the latest
    // values with the cursor away (not an empty "–").
    // (uPlot draws axis titles on its canvas: read them from the charts' options.)
    assert.deepEqual(await page.evaluate(() => [jobView.harvest.axes[1].label, jobView.pprs.axes[1].label]),
                     ['harvest rate', 'pages per relevant site']);
    assert.match(await page.textContent('.window-note'), /over the last [\d,]+ pages/);
    const legend = await page.locator('#chart-harvest .u-legend .u-value').allTextContents();
    assert.ok(legend.length >= 3 && legend.every((v) => v && v !== '–'), `legend: ${legend}`);
    const href = await page.getAttribute('#sites-table tbody tr:first-child a.site', 'href');
    assert.match(href, new RegExp(`^#/jobs/${id}/sites/`));
    const ext = await page.getAttribute('#sites-table tbody tr:first-child a.ext', 'href');
    assert.match(ext, /^https?:\/\//);
    assert.ok(await page.isDisabled('#b-pause'), 'a finished job cannot be paused');
    assert.ok(await page.isHidden('#seeds-form'), 'a finished job takes no seeds');

    // The relevant sites to take away: the CSV download.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#b-csv')]);
    assert.equal(dl.suggestedFilename(), `job-${id}-sites.csv`);
    const csv = readFileSync(await dl.path(), 'utf8').trim().split(/\r?\n/);
    assert.equal(csv[0], 'host,homepage,role,relevant,confidence,pages_visited,found_pages,rank,examined_at,'
      + 'judged_by,judged_at');
    assert.equal(csv.length - 1, relevant, 'the CSV has a row per relevant site');

    await page.waitForTimeout(2500); // let the new rows' highlight fade
    await page.screenshot({path: SCREENSHOT, fullPage: true});
    console.log(`# screenshot: ${SCREENSHOT}`);

    // The jobs list shows it, done.
    await page.click('text=← all jobs');
    await page.waitForSelector(`#jobs-table a[href="#/jobs/${id}"]`);
    assert.match(await page.textContent('#jobs-table tbody tr:first-child'), /done/);
    const home = SCREENSHOT.replace(/\.png$/, '-jobs.png');
    await page.screenshot({path: home, fullPage: true});
    console.log(`# screenshot: ${home}`);
    // Filter by state: no failed job here, then all again.
    await page.selectOption('#jobs-state', 'failed');
    await page.waitForFunction((jid) => !document.querySelector(`#jobs-table a[href="#/jobs/${jid}"]`), id,
                               {timeout: 5000});
    assert.equal(await page.locator(`#jobs-table a[href="#/jobs/${id}"]`).count(), 0,
                 'state=failed hides the done job');
    await page.selectOption('#jobs-state', '');
    await page.waitForSelector(`#jobs-table a[href="#/jobs/${id}"]`);
    // Delete the ended job, after the confirmation.
    page.once('dialog', (d) => d.accept());
    await page.click(`button[aria-label="delete job ${id}"]`);
    await page.waitForFunction((jid) => !document.querySelector(`#jobs-table a[href="#/jobs/${jid}"]`), id,
                               {timeout: 5000});
    const gone = await fetch(`${URL_}/api/jobs/${id}`);
    assert.equal(gone.status, 404, 'the deleted job is gone from the API');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});


test('the border view and a website\'s verdict explained', {timeout: 60_000,
  skip: !URL_ || !process.env.SITESCOUT_EXPLAIN_JOB}, async () => {
  const id = process.env.SITESCOUT_EXPLAIN_JOB;
  const browser = await launch();
  try {
    const page = await browser.newPage({viewport: {width: 1360, height: 1100}});
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    await page.route('**/*', (route) =>
      route.request().url().startsWith(URL_) ? route.continue() : route.abort());

    // The jobs list at 1400 and 1920 px: no column behind a horizontal scroll, the
    // delete button and CREATED inside the card, the form's Parameters inside its card.
    for (const width of [1400, 1920]) {
      await page.setViewportSize({width, height: 1000});
      await page.goto(`${URL_}/#/`);
      await page.waitForSelector(`#jobs-table button[aria-label="delete job ${id}"]`);
      const lay = await page.evaluate(() => {
        const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; };
        const table = document.querySelector('#jobs-table');
        const fs = document.querySelector('fieldset.params');
        const del = table.querySelector('button.link-del');
        return {
          scroll: table.parentElement.scrollWidth - table.parentElement.clientWidth,
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          jobsCard: box(table.closest('.card')), del: box(del),
          created: box(del.closest('tr').children[8]),
          formCard: box(fs.closest('.card')), fieldset: box(fs),
        };
      });
      const inside = (a, b) => a[0] >= b[0] - 0.5 && a[1] <= b[1] + 0.5;
      assert.equal(lay.scroll, 0, `${width} px: the jobs table scrolls sideways by ${lay.scroll} px`);
      assert.equal(lay.page, 0, `${width} px: the page scrolls sideways`);
      assert.ok(inside(lay.del, lay.jobsCard) && inside(lay.created, lay.jobsCard),
                `${width} px: delete ${lay.del} and created ${lay.created} inside the card ${lay.jobsCard}`);
      assert.ok(inside(lay.fieldset, lay.formCard),
                `${width} px: Parameters ${lay.fieldset} inside the new-job card ${lay.formCard}`);
      await page.screenshot({path: SCREENSHOT.replace(/\.png$/, `-jobs-${width}.png`)});
    }
    await page.setViewportSize({width: 1360, height: 1100});

    // The border on the job page: the API's first 50 candidates, best rank first.
    const border = await apiGet(`/api/jobs/${id}/border?limit=50`);
    assert.ok(border.total >= 2, `a border is left: ${border.total}`);
    await page.goto(`${URL_}/#/jobs/${id}`);
    await page.waitForFunction((n) => document.querySelectorAll('#border-table tbody tr').length === n,
                               border.border.length);
    const rows = await page.$$eval('#border-table tbody tr', (trs) => trs.map((tr) => ({
      host: tr.querySelector('a.site').textContent,
      rank: Number(tr.children[2].textContent),
    })));
    assert.deepEqual(rows.map((r) => r.host), border.border.map((b) => b.host), 'the border in the API\'s order');
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].rank >= rows[i].rank, 'best rank first');
    assert.match(await page.textContent('#border-count'), new RegExp(String(border.total)));
    assert.ok(await page.isHidden('#border-empty'));

    // Who gives the verdicts: the job's crawl model (judged at the crawl's end), in the
    // job's line and as a marker on each relevant website it judged (issue 30).
    const job = await apiGet(`/api/jobs/${id}`);
    assert.equal(job.judge.mode, 'crawl_model');
    assert.ok(job.judge.last, 'the default job was judged again by a crawl model');
    assert.match(await page.textContent('#j-judge'), new RegExp(
      `^Verdicts: the crawl model judged the websites again ${job.judge.models === 1 ? 'once' : `${job.judge.models} times`}; `
      + `the last, model #${job.judge.last.model_id} at .+, learnt from ${job.judge.last.pages.toLocaleString('en')} pages`));
    await page.waitForSelector('#sites-table tbody tr a.site');
    const listed = await apiGet(`/api/jobs/${id}/sites?relevant=true&role=discovered&order=confidence&limit=1000`);
    const marked = await page.$$eval('#sites-table tbody tr', (trs) => trs.map((tr) =>
      [tr.querySelector('a.site').textContent, tr.querySelector('.judged-mark') != null]));
    assert.deepEqual(marked, listed.sites.map((x) => [x.host, x.judged_by === 'crawl_model']),
                     'a marker on each crawl-model verdict of the relevant list');
    assert.ok(marked.some(([, m]) => m), 'some relevant website judged by the crawl model');
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-judged.png'), fullPage: true});

    // Click the most confident relevant website: its site page.
    const host = await page.textContent('#sites-table tbody tr:first-child a.site');
    await page.click('#sites-table tbody tr:first-child a.site');
    await page.waitForURL(new RegExp(`#/jobs/${id}/sites/`));
    await page.waitForSelector('#view-site[data-loaded="true"]');
    const d = await apiGet(`/api/jobs/${id}/sites/${host}/pages`);
    assert.equal(await page.textContent('#s-host'), host);
    assert.equal(await page.textContent('#s-verdict'), 'relevant');
    assert.equal(await page.textContent('#s-conf'), d.confidence.toFixed(4));
    // The pages in order, with the posterior after each: the page classifier's as it read.
    const cells = await page.$$eval('#spages-table tbody tr', (trs) => trs.map((tr) => [
      tr.children[0].textContent, tr.children[1].textContent, tr.children[4].textContent]));
    assert.deepEqual(cells, d.pages.map((p) => [String(p.n), p.url, p.posterior.toFixed(4)]));
    // Each page as the crawl model that judged it sees it: Pr[target | page] and weight.
    const model = await page.$$eval('#spages-table tbody tr', (trs) => trs.map((tr) => [
      tr.children[5].textContent, tr.children[6].textContent]));
    assert.deepEqual(model, d.pages.map((p) => p.model_pr == null ? ['–', '–']
      : [p.model_pr.toFixed(3), p.model_weight.toLocaleString('en')]));
    assert.ok(model.some(([pr]) => pr !== '–'), 'some page scored by the crawl model');
    assert.ok(await page.isVisible('#spages-table th.model-col'), 'the crawl model columns shown');
    // Who judged it, and when: the crawl model, with its figures; then the last
    // posterior is the examination's, said on that line.
    assert.equal(d.judged.by, 'crawl_model');
    assert.equal(await page.getAttribute('#s-judged', 'data-by'), 'crawl_model');
    assert.ok(await page.isVisible('#s-judged'));
    const m = d.judged.model;
    // A threshold as the page writes it: three decimals, two significant digits below 0.001.
    const thr = (x) => (x >= 0.001 ? x.toFixed(3) : x.toPrecision(2)).replace('.', '\\.').replace('+', '\\+');
    // What its links added (docs/api.md, judged.links): said when the judging weighed them.
    const signed = (x) => `${x > 0 ? '\\+' : x < 0 ? '\u2212' : ''}${Math.abs(x).toFixed(2)}`;
    const l = d.judged.links;
    assert.ok(l && d.crawl_model.link_evidence === l.evidence, 'the end judging weighed its links');
    const linkWords = `; its links weigh in: ${l.relevant.toLocaleString('en')} of its `
      + `${l.count.toLocaleString('en')} links to or from examined websites are to or from relevant ones, `
      + `evidence ${signed(l.evidence)} nats against the text's ${signed(d.crawl_model.text_evidence)}`;
    assert.match(await page.textContent('#s-judged'), new RegExp(
      `^Judged by the crawl model #${d.judged.model_id} \\(learnt from ${m.pages.toLocaleString('en')} pages`
      + `${m.threshold == null ? '' : `; threshold ${thr(m.threshold)}`}\\) at .*\\d.*, from the pages read\\. `
      + `Its score, the mean of its pages' Pr\\[target \\| page\\] by this model weighted by each page's weight, `
      + `is ${d.crawl_model.score.toFixed(3)}: above the threshold ${thr(d.crawl_model.threshold)}${linkWords}, so relevant\\. `
      + `Below, each page as the crawl model sees it \\(the last two columns\\) and `
      + `how the page classifier judged it while it was read \\(Pr\\[target \\| pages\\] ${cells.at(-1)[2]}\\)\\.$`));
    // Why: the verdict and the stop reason in words.
    assert.match(await page.textContent('#s-how'), /p_threshold/);
    assert.equal(await page.getAttribute('#s-stop', 'data-reason'), d.stop.reason);
    assert.match(await page.textContent('#s-stop'), /^(Reading|After the verdict)/);
    // The plot of the posterior against pages read, drawn.
    const box = await page.locator('#chart-posterior .uplot canvas').boundingBox();
    assert.ok(box && box.width > 200 && box.height > 100, `the posterior chart: ${JSON.stringify(box)}`);
    assert.equal(await page.evaluate(() => siteChart.data[0].length), d.pages.length + 1,
                 'the prior and a point per page');
    // The plot's x axis is pages read: its ticks are whole pages.
    const ticks = await page.evaluate(() => siteChart.axes[0]._splits);
    assert.ok(ticks.length >= 2 && ticks.every(Number.isInteger), `x ticks on whole pages: ${ticks}`);
    // The links that brought the crawl there, with their weights; a source links to its page.
    const edges = await page.$$eval('#in-table tbody tr', (trs) => trs.map((tr) => [
      tr.querySelector('a.site').textContent, tr.children[4].textContent]));
    assert.deepEqual(edges, d.edges_in.map((e) => [e.host, e.weight.toFixed(3)]));
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-site.png'), fullPage: true});
    if (edges.length) {
      await page.click('#in-table tbody tr:first-child a.site');
      await page.waitForFunction((h) => document.querySelector('#s-host').textContent === h, edges[0][0]);
      await page.waitForSelector('#view-site[data-loaded="true"]');
      console.log(`# ${host}: ${d.pages.length} pages, ${edges.length} in-edges; followed one to ${edges[0][0]}`);
    }

    // A training website (one of the job's relevant_sites) is explained as a training
    // example: its label, its pages and their Pr[page | target], plotted.
    // (The explained job is the demo job too: its relevant_sites are SITESCOUT_JOB's.)
    let train = null;
    for (const u of JSON.parse(readFileSync(process.env.SITESCOUT_JOB, 'utf8')).relevant_sites) {
      const t = await apiGet(`/api/jobs/${id}/sites/${new URL(u).host}/pages`);
      if (t.training && t.pages.some((p) => p.confidence != null)) { train = t; break; }
    }
    assert.ok(train, 'a training website with classified pages');
    await page.goto(`${URL_}/#/jobs/${id}/sites/${train.host}`);
    await page.waitForFunction((h) => document.querySelector('#s-host').textContent === h &&
      document.querySelector('#view-site').dataset.loaded === 'true', train.host);
    assert.equal(await page.textContent('#s-verdict'), 'training example: relevant');
    assert.ok(await page.isHidden('#s-judged'), 'a training example has no judged line');
    assert.match(await page.textContent('#s-how'), /^A training example: the job's relevant_sites lists it/);
    assert.doesNotMatch(await page.textContent('#s-stop'), /not recorded/);
    const confs = await page.$$eval('#spages-table tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent));
    assert.deepEqual(confs, train.pages.map((p) => (p.confidence == null ? 'not classified' : p.confidence.toFixed(3))));
    assert.equal(await page.evaluate(() => siteChart && siteChart.data[1].length),
                 train.pages.filter((p) => p.confidence != null).length, 'a point per classified page');
    assert.equal(await page.textContent('#post-h'), 'Pr[page | target] of each training page');
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-training.png'), fullPage: true});

    // An unknown website says so.
    await page.goto(`${URL_}/#/jobs/${id}/sites/no.such.host`);
    await page.waitForSelector('#s-error:not([hidden])');
    assert.match(await page.textContent('#s-error'), /no website no\.such\.host/);
    assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  } finally {
    await browser.close();
  }
});

// Wait until fn(arg) holds in the page, or fail after ms saying what was awaited.
const waitFor = async (page, what, fn, arg, ms = 30_000) => {
  try {
    await page.waitForFunction(fn, arg, {timeout: ms});
  } catch (err) {
    throw new Error(`waited ${ms / 1000} s for ${what}: ${err.message.split('\n')[0]}`);
  }
};
const hostsIn = (page, sel) => page.$$eval(`${sel} tbody tr a.site`, (as) => as.map((a) => a.textContent));

test('labels: ✗ on a relevant website, ✓ on a border website, taken back on its page', {timeout: 120_000,
  skip: !URL_ || !process.env.SITESCOUT_EXPLAIN_JOB}, async () => {
  const id = process.env.SITESCOUT_EXPLAIN_JOB;
  const browser = await launch();
  try {
    const page = await browser.newPage({viewport: {width: 1360, height: 1100}});
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    // (The one 422 below is wanted: the browser logs it as a failed load.)
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 422/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    await page.route('**/*', (route) =>
      route.request().url().startsWith(URL_) ? route.continue() : route.abort());
    assert.deepEqual((await apiGet(`/api/jobs/${id}/labels`)).labels, [], 'no label yet');
    const models = (await apiGet(`/api/jobs/${id}`)).judge.models;

    await page.goto(`${URL_}/#/jobs/${id}`);
    await page.waitForSelector('#sites-table tbody tr .label-btns');
    await page.waitForSelector('#border-table tbody tr .label-btns');
    assert.ok(await page.isHidden('#labels-card'), 'no label: no "Your labels" card');

    // ✗ on the least confident relevant website, from the keyboard: it leaves the list.
    const relevant = await hostsIn(page, '#sites-table');
    assert.ok(relevant.length >= 1, `relevant websites found: ${relevant.length}`);
    const host = relevant.at(-1);
    const no = page.locator(`#sites-table button[aria-label="label ${host} not relevant"]`);
    assert.equal(await no.getAttribute('aria-pressed'), 'false');
    await no.focus();
    await page.keyboard.press('Enter');
    await waitFor(page, `${host} to leave the relevant list`, (h) =>
      ![...document.querySelectorAll('#sites-table tbody a.site')].some((a) => a.textContent === h), host);
    assert.deepEqual((await apiGet(`/api/jobs/${id}/labels`)).labels.map((l) => [l.host, l.relevant]),
                     [[host, false]], 'GET /labels lists it, not relevant');
    // "Your labels" shows it, ✗ pressed.
    await page.waitForSelector('#labels-card:not([hidden])');
    assert.deepEqual(await hostsIn(page, '#labels-table'), [host]);
    assert.equal(await page.textContent('#labels-table tbody tr .label-mark'), 'labelled ✗');
    assert.equal(await page.getAttribute(`#labels-table button[aria-label="label ${host} not relevant"]`,
                                         'aria-pressed'), 'true');

    // ✓ on the last border website: marked, and first in the border (read next).
    const border = await hostsIn(page, '#border-table');
    assert.ok(border.length >= 2, `a border of ${border.length}`);
    const cand = border.at(-1);
    await page.click(`#border-table button[aria-label="label ${cand} relevant"]`);
    await waitFor(page, `${cand} marked labelled ✓ at the head of the border`, (h) => {
      const tr = document.querySelector('#border-table tbody tr');
      const mark = tr && tr.querySelector('.label-mark');
      return tr && tr.querySelector('a.site').textContent === h && mark && mark.textContent === 'labelled ✓'
        && tr.querySelector('button.yes').getAttribute('aria-pressed') === 'true';
    }, cand);
    assert.deepEqual(await hostsIn(page, '#labels-table'), [cand, host], 'the last label first');
    assert.equal((await apiGet(`/api/jobs/${id}/border?limit=1`)).border[0].host, cand);

    // An error of the API is shown, not swallowed: the PUT's body spoilt on its way, the
    // server's own 422 under the list, and no label stored.
    await page.route('**/label', (route) => route.continue({postData: '{"relevant": "yes"}'}), {times: 1});
    const other = (await hostsIn(page, '#border-table'))[1];
    await page.click(`#border-table button[aria-label="label ${other} not relevant"]`);
    await page.waitForSelector('#border-label-error:not([hidden])');
    assert.equal(await page.textContent('#border-label-error'), `${other} was not labelled not relevant: `
      + 'relevant: a label\'s body is {"relevant": true} or {"relevant": false}');
    assert.equal((await apiGet(`/api/jobs/${id}/labels`)).labels.length, 2, 'the refused label stored nothing');

    // The job judges again, learning from the labels; the page follows without a reload:
    // its judging line counts the new model, its list is the API's.
    let want = null;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = await apiGet(`/api/jobs/${id}`);
      const listed = await apiGet(`/api/jobs/${id}/sites?relevant=true&role=discovered&order=confidence&limit=1000`);
      want = listed.sites.map((x) => x.host);
      const shown = await hostsIn(page, '#sites-table');
      const line = await page.textContent('#j-judge');
      const times = job.judge.models === 1 ? 'once' : `${job.judge.models} times`;
      if (job.judge.models > models && line.includes(`again ${times};`) && shown.join() === want.join()) break;
      assert.ok(Date.now() < deadline, `waited 60 s for the page to show the job judged again (models ${models} `
        + `then ${job.judge.models}; line "${line}"; ${shown.length} rows shown, the API ${want.length})`);
      await page.waitForTimeout(200); // a poll's pause between two looks, not a wait for an event
    }
    assert.ok(!want.includes(host), `${host}, labelled not relevant, stays out of the list`);
    console.log(`# labels: ${host} ✗, ${cand} ✓; judged again: ${relevant.length} relevant websites found before, `
      + `${want.length} after`);
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-labels.png'), fullPage: true});

    // Its page: the verdict is the label, the user gave it; ✗ pressed again takes it back.
    await page.click(`#labels-table a.site:text-is("${host}")`);
    await page.waitForURL(new RegExp(`#/jobs/${id}/sites/`));
    await waitFor(page, `${host}'s page`, (h) => document.querySelector('#s-host').textContent === h
      && document.querySelector('#view-site').dataset.loaded === 'true', host);
    assert.equal(await page.textContent('#s-verdict'), 'not relevant');
    assert.equal(await page.getAttribute('#s-judged', 'data-by'), 'user');
    assert.match(await page.textContent('#s-judged'), /^Judged by you: you labelled it not relevant at /);
    assert.equal(await page.textContent('#s-label-mark'), 'labelled ✗');
    const pressed = page.locator(`#s-label button[aria-label="label ${host} not relevant"]`);
    assert.equal(await pressed.getAttribute('aria-pressed'), 'true');
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-site-label.png')});
    await pressed.click();
    await waitFor(page, `${host}'s label taken back on its page`, (h) =>
      document.querySelector(`#s-label button[aria-label="label ${h} not relevant"]`).getAttribute('aria-pressed') === 'false'
      && document.querySelector('#s-label-mark').textContent === ''
      && document.querySelector('#s-judged').dataset.by !== 'user', host);
    assert.ok(await page.isHidden('#s-label-error'));
    assert.deepEqual((await apiGet(`/api/jobs/${id}/labels`)).labels.map((l) => l.host), [cand],
                     'GET /labels: the border website\'s label is left');
    // A training website has no buttons: its list is its label.
    let train = null;
    for (const u of JSON.parse(readFileSync(process.env.SITESCOUT_JOB, 'utf8')).relevant_sites) {
      if ((await apiGet(`/api/jobs/${id}/sites/${new URL(u).host}/pages`)).training) { train = new URL(u).host; break; }
    }
    assert.ok(train, 'a training website');
    await page.goto(`${URL_}/#/jobs/${id}/sites/${train}`);
    await waitFor(page, `${train}'s page`, (h) => document.querySelector('#s-host').textContent === h
      && document.querySelector('#view-site').dataset.loaded === 'true', train);
    assert.ok(await page.isHidden('#s-label'), 'no label buttons on a training website');
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('a picture of what was found: the graph', {timeout: 120_000,
  skip: !URL_ || !process.env.SITESCOUT_EXPLAIN_JOB}, async () => {
  const id = process.env.SITESCOUT_EXPLAIN_JOB;
  const browser = await launch();
  try {
    const page = await browser.newPage({viewport: {width: 1360, height: 1100}});
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    await page.route('**/*', (route) =>
      route.request().url().startsWith(URL_) ? route.continue() : route.abort());

    // The labels test before left labels to judge: the graph is read once they are.
    const settle = Date.now() + 60_000;
    while ((await apiGet(`/api/jobs/${id}`)).judge.labels_pending) {
      assert.ok(Date.now() < settle, 'the job judged its labels within 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    const g = await apiGet(`/api/jobs/${id}/graph`);
    assert.ok(g.nodes.length >= 2, `a graph of ${g.nodes.length} websites`);
    const hosts = new Set(g.nodes.map((n) => n.host));
    assert.ok(g.edges.every((e) => hosts.has(e.src) && hosts.has(e.dst) && e.src !== e.dst),
              'the edges join two of the nodes');
    const rel = g.nodes.map((n) => Boolean(n.relevant));
    assert.deepEqual(rel, [...rel].sort((a, b) => b - a), 'the relevant first');
    assert.equal(g.total, g.nodes.length, 'a small job: all its examined websites');

    // From the job page's link: the picture, drawn, with the API's websites and links.
    await page.goto(`${URL_}/#/jobs/${id}`);
    await page.click('#j-graph');
    await page.waitForURL(new RegExp(`#/jobs/${id}/graph$`));
    await waitFor(page, 'the graph drawn', () => document.querySelector('#g-canvas').dataset.drawn === 'true');
    assert.equal(await page.getAttribute('#g-summary', 'data-nodes'), String(g.nodes.length));
    assert.equal(await page.getAttribute('#g-summary', 'data-edges'), String(g.edges.length));
    assert.match(await page.textContent('#g-summary'),
                 new RegExp(`^${g.nodes.length} websites: ${g.nodes.filter((n) => n.relevant).length} relevant`));
    await waitFor(page, 'the layout to settle', () => document.querySelector('#g-canvas').dataset.settled === 'true');
    const inked = await page.$eval('#g-canvas', (c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      return n;
    });
    assert.ok(inked > 500, `the graph is drawn (${inked} pixels)`);
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-graph.png'), fullPage: true});

    // From the keyboard: the arrows name the websites in the API's order, the relevant first.
    await page.focus('#g-canvas');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.textContent('#g-hover'), new RegExp(`^${g.nodes[1].host.replace(/\./g, '\\.')}: `));
    await page.keyboard.press('ArrowLeft');
    // (The labels test's judging may have left the job without a relevant website.)
    const verdict = g.nodes[0].label != null ? `labelled ${g.nodes[0].label ? 'relevant' : 'not relevant'} by you`
      : g.nodes[0].relevant ? 'relevant' : 'not relevant';
    assert.ok((await page.textContent('#g-hover')).startsWith(`${g.nodes[0].host}: ${verdict}, confidence `),
              await page.textContent('#g-hover'));
    // Pointing at the most relevant website names it; a click opens its verdict page.
    const box = await page.locator('#g-canvas').boundingBox();
    const [x, y] = await page.evaluate((h) => graphView.screenOf(h), g.nodes[0].host);
    // (The website drawn there: another could lie on it, the nearest centre wins.)
    const host = await page.evaluate(([px, py]) => graphView.nodeAt(px, py).host, [x, y]);
    await page.mouse.move(box.x + x, box.y + y);
    await waitFor(page, `the hover line to name ${host}`, (h) =>
      document.querySelector('#g-hover').textContent.startsWith(`${h}: `), host);
    await page.mouse.click(box.x + x, box.y + y);
    await page.waitForURL(new RegExp(`#/jobs/${id}/sites/`));
    await waitFor(page, `${host}'s verdict page`, (h) => document.querySelector('#s-host').textContent === h
      && document.querySelector('#view-site').dataset.loaded === 'true', host);
    // ✓ there; back to the picture, the website is coloured as labelled.
    await page.click(`#s-label button[aria-label="label ${host} relevant"]`);
    await waitFor(page, `${host} labelled on its page`, (h) =>
      document.querySelector(`#s-label button[aria-label="label ${h} relevant"]`).getAttribute('aria-pressed') === 'true',
    host);
    await page.goBack();
    await waitFor(page, `${host} labelled in the graph`, (h) => graphView && graphView.byHost.get(h)
      && graphView.byHost.get(h).label === true && document.querySelector('#g-canvas').dataset.drawn === 'true', host);
    const undo = await fetch(`${URL_}/api/jobs/${id}/sites/${host}/label`, {method: 'DELETE'});
    assert.equal(undo.status, 200, 'the label taken back');

    // 2,000 websites (the most the view asks for) and 8,000 links, made up in the page:
    // how long to the first picture, to a settled layout, and the longest frame meanwhile.
    const m = await page.evaluate(() => new Promise((resolve) => {
      let seed = 1;
      const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
      const nodes = [], edges = [];
      for (let i = 0; i < 2000; i++) {
        nodes.push({host: `h${i}.example`, role: i < 20 ? 'start' : 'discovered', confidence: rnd(),
                    relevant: i < 600, label: i % 97 === 0 ? i % 2 === 0 : null});
      }
      for (let i = 0; i < 8000; i++) {
        const a = Math.floor(rnd() * 2000), b = Math.floor(rnd() ** 2 * 2000);
        if (a !== b) edges.push({src: `h${a}.example`, dst: `h${b}.example`, weight: rnd(), pages: 1});
      }
      let longest = 0, longestAt = 0, last = performance.now(), frames = 0;
      const t0 = performance.now();
      const watch = () => {
        const now = performance.now();
        if (now - last > longest) { longest = now - last; longestAt = frames; }
        last = now;
        frames++;
        if (document.querySelector('#g-canvas').dataset.settled === 'true' || now - t0 > 60_000) {
          resolve({first: graphView.firstDrawMs, settled: now - t0, steps: graphView.steps, longest, longestAt, frames,
                   draw: graphView.drawMs, sim: graphView.simMs,
                   nodes: document.querySelector('#g-summary').dataset.nodes,
                   done: document.querySelector('#g-canvas').dataset.settled === 'true'});
        } else {
          requestAnimationFrame(watch);
        }
      };
      graphView.steps = 0;
      graphView.simMs = 0;
      graphView.byHost = new Map(); // a new picture, not the job's moved
      graphView.load({nodes, edges, total: 2000, edges_capped: false});
      requestAnimationFrame(watch);
    }));
    assert.equal(m.nodes, '2000');
    assert.ok(m.done, `the layout of 2,000 websites settled within 60 s: ${JSON.stringify(m)}`);
    console.log(`# graph of 2,000 websites and ~8,000 links: first drawing ${m.first.toFixed(1)} ms, `
      + `settled after ${(m.settled / 1000).toFixed(2)} s (${m.steps} steps, ${m.frames} frames), `
      + `longest frame ${m.longest.toFixed(1)} ms (frame ${m.longestAt}); a step ${(m.sim / m.steps).toFixed(1)} ms, a drawing ${m.draw.toFixed(1)} ms`);
    await page.screenshot({path: SCREENSHOT.replace(/\.png$/, '-graph-2000.png')});
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('a server with a token: the page asks for it once', {timeout: 60_000,
  skip: !process.env.SITESCOUT_TOKEN_URL}, async () => {
  const url = process.env.SITESCOUT_TOKEN_URL;
  const browser = await launch();
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${url}/`);
    await page.waitForSelector('#view-token:not([hidden])');
    await page.fill('#f-token', process.env.SITESCOUT_TOKEN);
    await page.click('#token-form button[type=submit]');
    // The job of the first test, read with the token.
    await page.waitForSelector('#jobs-table tbody tr a');
    assert.match(await page.textContent('#jobs-table tbody tr:first-child'), /done/);
    await page.reload();
    await page.waitForSelector('#jobs-table tbody tr a');
    assert.ok(await page.isHidden('#view-token'), 'the token is kept for the session');
    // A label's request carries the token too: the label left by the labels test is
    // taken back from "Your labels".
    if (process.env.SITESCOUT_EXPLAIN_JOB) {
      await page.click('#jobs-table tbody tr:first-child a');
      await page.waitForSelector('#labels-table tbody tr button[aria-pressed="true"]');
      await page.click('#labels-table tbody tr button[aria-pressed="true"]');
      await page.waitForSelector('#labels-card', {state: 'hidden'});
      assert.ok(await page.isHidden('#view-token'), 'the label was taken back with the token');
      const r = await fetch(`${url}/api/jobs/${process.env.SITESCOUT_EXPLAIN_JOB}/labels`,
                            {headers: {Authorization: `Bearer ${process.env.SITESCOUT_TOKEN}`}});
      assert.deepEqual((await r.json()).labels, [], 'no label left');
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
