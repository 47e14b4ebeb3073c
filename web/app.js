/*
 * The sitescout dashboard: plain JavaScript, no build step. Three views, chosen by the
 * URL hash: #/ (the jobs and a form to start one), #/jobs/ID (one job, live, with its
 * border), #/jobs/ID/graph (a picture of what it found: its websites and their links)
 * and #/jobs/ID/sites/HOST (one website's verdict explained); on the job and site pages
 * a user labels websites relevant or not (✓ / ✗, docs/api.md "Labels"). It
 * polls the JSON API of `sitescout serve` (docs/api.md) and draws with uPlot
 * (web/vendor/, made by scripts/vendor-web.sh).
 */
'use strict';

const RUNNING = new Set(['queued', 'training', 'crawling', 'stopping']);
const POLL_RUNNING_MS = 1000;
const POLL_IDLE_MS = 5000;

const $ = (sel) => document.querySelector(sel);

/* ---- the API ---- */

class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code;
    this.field = e.field;
  }
}

async function api(method, path, body) {
  const headers = {};
  const token = sessionStorage.getItem('sitescout.token');
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let resp;
  try {
    resp = await fetch(path, {method, headers, body: body === undefined ? undefined : body});
  } catch (err) {
    setConn(false);
    throw err;
  }
  setConn(true);
  const text = await resp.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch (_) { data = null; }
  }
  if (resp.status === 401) {
    showView('token');
    throw new ApiError(401, data);
  }
  if (!resp.ok) throw new ApiError(resp.status, data);
  return data;
}

function setConn(ok) {
  const el = $('#conn');
  el.textContent = ok ? '' : 'server unreachable: retrying';
  el.classList.toggle('bad', !ok);
}

/* ---- formatting ---- */

const fmtInt = (n) => (n == null ? '–' : Number(n).toLocaleString('en'));
const fmtPct = (x) => (x == null ? '–' : `${(100 * x).toFixed(1)} %`);
const fmtNum = (x, d = 1) => (x == null ? '–' : Number(x).toFixed(d));
// A crawl model's threshold: three decimals, or two significant digits below 0.001 (a topic
// of unlike websites may have one of 1e-7: docs/classifier.md, "A website's verdict").
const fmtThreshold = (x) => (x == null ? '–'
  : Number(x) >= 0.001 ? Number(x).toFixed(3) : Number(x).toPrecision(2));

function fmtTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString('en-GB', {dateStyle: 'short', timeStyle: 'medium'});
}

function fmtDuration(s) {
  if (s == null || !isFinite(s)) return '–';
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  return h ? `${h} h ${m} min` : m ? `${m} min ${sec} s` : `${sec} s`;
}

function stateBadge(state) {
  const span = document.createElement('span');
  span.className = `state state-${state}`;
  span.textContent = state;
  return span;
}

function cell(tr, content, cls) {
  const td = document.createElement('td');
  if (content instanceof Node) td.appendChild(content);
  else td.textContent = content;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

/* ---- views and routing ---- */

let timer = null;      // the pending poll
let view = null;       // {name, id}
let jobView = null;    // the state of the job page

function showView(name) {
  for (const v of ['home', 'job', 'site', 'graph', 'token']) $(`#view-${v}`).hidden = v !== name;
}

function schedule(fn, ms) {
  clearTimeout(timer);
  timer = setTimeout(fn, ms);
}

function route() {
  clearTimeout(timer);
  const m = location.hash.match(/^#\/jobs\/(\d+)$/);
  const ms = location.hash.match(/^#\/jobs\/(\d+)\/sites\/([^/]+)$/);
  const mg = location.hash.match(/^#\/jobs\/(\d+)\/graph$/);
  if (graphView) graphView.stop();
  if (m) {
    view = {name: 'job', id: Number(m[1])};
    openJob(view.id);
  } else if (mg) {
    view = {name: 'graph', id: Number(mg[1])};
    openGraph(view.id);
  } else if (ms) {
    view = {name: 'site', id: Number(ms[1]), host: decodeURIComponent(ms[2])};
    openSite(view.id, view.host);
  } else {
    view = {name: 'home'};
    openHome();
  }
}

/* ---- #/: the jobs and the form ---- */

function openHome() {
  showView('home');
  document.title = 'sitescout: jobs';
  pollJobs();
}

/* The jobs list's page and filter: JOBS_PAGE jobs a page, newest first. */
const JOBS_PAGE = 20;
const jobsList = {offset: 0, state: ''};

async function pollJobs() {
  if (!view || view.name !== 'home') return;
  let anyRunning = false;
  try {
    const q = `limit=${JOBS_PAGE}&offset=${jobsList.offset}` +
      (jobsList.state ? `&state=${encodeURIComponent(jobsList.state)}` : '');
    const d = await api('GET', `/api/jobs?${q}`);
    if (!d.jobs.length && jobsList.offset > 0 && d.total > 0) { // the page emptied: go back
      jobsList.offset = Math.max(0, jobsList.offset - JOBS_PAGE);
      return pollJobs();
    }
    renderJobs(d.jobs);
    renderJobsPager(d.total);
    anyRunning = d.jobs.some((j) => RUNNING.has(j.state));
  } catch (err) {
    if (err.status === 401) return;
  }
  if (view.name === 'home') schedule(pollJobs, anyRunning ? POLL_RUNNING_MS : POLL_IDLE_MS);
}

function renderJobsPager(total) {
  const first = total ? jobsList.offset + 1 : 0;
  const last = Math.min(total, jobsList.offset + JOBS_PAGE);
  $('#jobs-count').textContent = total ? `(${fmtInt(total)})` : '';
  $('#jobs-page').textContent = total > JOBS_PAGE ? `${fmtInt(first)}–${fmtInt(last)} of ${fmtInt(total)}` : '';
  $('#jobs-prev').disabled = jobsList.offset === 0;
  $('#jobs-next').disabled = last >= total;
}

function jobsPage(delta) {
  jobsList.offset = Math.max(0, jobsList.offset + delta * JOBS_PAGE);
  pollJobs();
}

/* Delete an ended job (DELETE /api/jobs/ID), once the user has confirmed it. */
async function deleteJob(j) {
  if (!window.confirm(`Delete job ${j.id} (${j.topic}) and everything it found?`)) return;
  $('#jobs-error').hidden = true;
  try {
    await api('DELETE', `/api/jobs/${j.id}`);
  } catch (err) {
    $('#jobs-error').textContent = `Job ${j.id} was not deleted: ${err.message}`;
    $('#jobs-error').hidden = false;
  }
  pollJobs();
}

function renderJobs(jobs) {
  const tbody = $('#jobs-table tbody');
  tbody.replaceChildren();
  for (const j of jobs) {
    const tr = document.createElement('tr');
    const a = document.createElement('a');
    a.href = `#/jobs/${j.id}`;
    a.textContent = j.id;
    cell(tr, a);
    const t = document.createElement('a');
    t.href = `#/jobs/${j.id}`;
    t.textContent = j.topic;
    cell(tr, t);
    cell(tr, stateBadge(j.state));
    cell(tr, fmtInt(j.counters.pages_downloaded), 'num');
    cell(tr, fmtInt(j.counters.sites_examined), 'num');
    cell(tr, fmtInt(j.counters.relevant_found), 'num');
    cell(tr, fmtPct(j.harvest_rate), 'num');
    cell(tr, fmtNum(j.pprs), 'num');
    cell(tr, fmtTime(j.created_at), 'nowrap');
    if (j.state === 'done' || j.state === 'failed') {
      const del = document.createElement('button');
      del.type = 'button';
      del.className = 'link-del';
      del.title = `delete job ${j.id}`;
      del.setAttribute('aria-label', `delete job ${j.id}`);
      del.textContent = '✕';
      del.addEventListener('click', () => deleteJob(j));
      cell(tr, del);
    } else {
      cell(tr, '');
    }
    tbody.appendChild(tr);
  }
  $('#jobs-table').hidden = jobs.length === 0;
  $('#jobs-empty').hidden = jobs.length !== 0;
}

const LIST_FIELDS = ['relevant_sites', 'other_sites', 'start_sites'];
const FIELD_INPUT = {topic: '#f-topic', relevant_sites: '#f-relevant', other_sites: '#f-other',
                     start_sites: '#f-start'};
const PARAMS = ['max_pages', 'max_relevant_sites', 'max_seconds', 'concurrency',
                'politeness_delay_ms', 'p_threshold'];
const CHOICE_PARAMS = ['strategy', 'classifier']; /* strings, from a <select> */
const CHOICE_DEFAULTS = {strategy: 'website', classifier: 'knn'}; /* shown as '' */

function jsonMode() { return $('#tab-json').getAttribute('aria-selected') === 'true'; }

/* The form's fields as a job body. */
function fieldsToJob() {
  const job = {topic: $('#f-topic').value.trim()};
  for (const f of LIST_FIELDS)
    job[f] = $(FIELD_INPUT[f]).value.split(/\s+/).filter((s) => s);
  const params = {};
  for (const p of PARAMS) {
    const v = $(`#p-${p}`).value.trim();
    if (v !== '') params[p] = Number(v);
  }
  for (const p of CHOICE_PARAMS) {
    const v = $(`#p-${p}`).value;
    if (v !== '') params[p] = v;
  }
  if (Object.keys(params).length) job.params = params;
  return job;
}

/* A job body into the fields (what it can show); unknown params stay in the JSON tab. */
function jobToFields(job) {
  $('#f-topic').value = job.topic || '';
  for (const f of LIST_FIELDS) $(FIELD_INPUT[f]).value = (job[f] || []).join('\n');
  for (const p of PARAMS.concat(CHOICE_PARAMS)) {
    const v = job.params && job.params[p];
    $(`#p-${p}`).value = v == null || v === CHOICE_DEFAULTS[p] ? '' : v;
  }
}

function selectTab(json) {
  if (json === jsonMode()) return;
  clearFormError();
  if (json) {
    $('#f-json').value = JSON.stringify(fieldsToJob(), null, 2);
  } else {
    try {
      jobToFields(JSON.parse($('#f-json').value || '{}'));
    } catch (err) {
      showFormError(`The JSON does not parse: ${err.message}`, null);
      return;
    }
  }
  $('#tab-json').setAttribute('aria-selected', String(json));
  $('#tab-fields').setAttribute('aria-selected', String(!json));
  $('#pane-json').hidden = !json;
  $('#pane-fields').hidden = json;
}

function clearFormError() {
  $('#form-error').hidden = true;
  for (const el of document.querySelectorAll('#job-form [aria-invalid]')) el.removeAttribute('aria-invalid');
}

/* Show an API error next to the form, marking the input the field names. */
function showFormError(message, field) {
  const p = $('#form-error');
  p.textContent = message;
  p.hidden = false;
  if (!field) return;
  let input = null;
  if (jsonMode()) input = $('#f-json');
  else {
    const top = field.replace(/\[.*$/, '').split('.')[0];
    if (top === 'params') input = $(`#p-${field.split('.')[1]}`);
    else if (FIELD_INPUT[top]) input = $(FIELD_INPUT[top]);
  }
  if (input) {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  }
}

async function submitJob(ev) {
  ev.preventDefault();
  clearFormError();
  let body;
  if (jsonMode()) {
    body = $('#f-json').value;
  } else {
    const job = fieldsToJob();
    if (!job.topic) return showFormError('topic: give the job a topic', 'topic');
    body = JSON.stringify(job);
  }
  const button = $('#submit');
  button.disabled = true;
  try {
    const job = await api('POST', '/api/jobs', body);
    location.hash = `#/jobs/${job.id}`;
  } catch (err) {
    if (err.status !== 401)
      showFormError(err.field ? err.message : `Not started: ${err.message}`, err.field);
  } finally {
    button.disabled = false;
  }
}

/* ---- #/jobs/ID: one job, live ---- */

/* The last non-null value of a series: what the legend shows with the cursor away. */
function lastValue(data) {
  for (let i = data.length - 1; i >= 0; i--) if (data[i] != null) return data[i];
  return null;
}

/*
 * A chart against pages downloaded; yLabel titles the y axis. Each series' value(u, v)
 * formats a point; with the cursor off the plot the legend shows the latest values.
 */
function makeChart(el, series, yFmt, yLabel) {
  const latest = (fmt) => (u, v, si, idx) => fmt(u, idx == null ? lastValue(u.data[si]) : v);
  series = series.map((s) => ({...s, value: latest(s.value)}));
  const opts = {
    width: Math.max(300, el.clientWidth),
    height: 260,
    scales: {x: {time: false}, y: {range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1]}},
    axes: [
      {label: 'pages downloaded', values: (u, ticks) => ticks.map((v) => fmtInt(v))},
      {label: yLabel, values: (u, ticks) => ticks.map(yFmt), size: 60},
    ],
    legend: {live: true},
    cursor: {drag: {x: false, y: false}},
    series: [{label: 'pages', value: latest((u, v) => fmtInt(v))}, ...series],
  };
  el.replaceChildren();
  return new uPlot(opts, [[], [], []], el);
}

function openJob(id) {
  showView('job');
  document.title = `sitescout: job ${id}`;
  $('#j-id').textContent = id;
  $('#j-graph').href = `#/jobs/${id}/graph`;
  $('#j-topic').textContent = '';
  $('#j-state').replaceChildren();
  const pct = (u, v) => fmtPct(v);
  const num = (u, v) => fmtNum(v);
  jobView = {
    id,
    since: -1,
    data: [[], [], [], [], []], // pages, harvest, harvest window, pprs, pprs window
    sites: new Set(),
    first: true,
    seq: 0,         // the latest poll's number: an older poll's answer is not drawn
    fastUntil: 0,   // after a label, poll every second until then (the job judges again)
    labels: new Map(), // host -> true (relevant) or false (not), the user's labels
    harvest: makeChart($('#chart-harvest'), [
      {label: 'overall', stroke: '#2563eb', width: 2, value: pct},
      {label: 'windowed', stroke: '#f59e0b', width: 2, dash: [6, 4], value: pct},
    ], (v) => `${Math.round(100 * v)} %`, 'harvest rate'),
    pprs: makeChart($('#chart-pprs'), [
      {label: 'overall', stroke: '#059669', width: 2, value: num},
      {label: 'windowed', stroke: '#db2777', width: 2, dash: [6, 4], value: num},
    ], (v) => (Number.isInteger(v) ? String(v) : fmtNum(v, v < 10 ? 1 : 0)), 'pages per relevant site'),
  };
  pollJob();
}

async function pollJob() {
  const jv = jobView;
  if (!view || view.name !== 'job' || !jv || jv.id !== view.id) return;
  clearTimeout(timer); // a poll asked for now (after a label) replaces the one pending
  const seq = ++jv.seq;
  const current = () => jv === jobView && seq === jv.seq;
  let job = null;
  try {
    job = await api('GET', `/api/jobs/${jv.id}`);
    const [m, s, st, b, l, u] = await Promise.all([
      api('GET', `/api/jobs/${jv.id}/metrics?since=${jv.since}`),
      api('GET', `/api/jobs/${jv.id}/sites?relevant=true&role=discovered&order=confidence&limit=1000`),
      api('GET', `/api/jobs/${jv.id}/sites?role=start&order=confidence&limit=1000`),
      api('GET', `/api/jobs/${jv.id}/border?limit=${BORDER_ROWS}`),
      api('GET', `/api/jobs/${jv.id}/labels`),
      api('GET', `/api/jobs/${jv.id}/sites?role=discovered&order=unsure&limit=${UNSURE_ROWS}`),
    ]);
    if (!current()) return;
    renderJob(job);
    addMetrics(m.metrics);
    jv.labels = labelMap(l);
    renderLabels(l);
    renderSites(s);
    renderStartSites(st);
    renderUnsure(u);
    renderRelevantSplit(job, s, st);
    renderBorder(b);
    restoreFocus($('#view-job'));
    jv.first = false;
  } catch (err) {
    if (!current() || err.status === 401) return;
    if (err.status === 404) {
      $('#j-error').textContent = `There is no job ${jv.id}.`;
      $('#j-error').hidden = false;
      return;
    }
  }
  if (!current()) return;
  const live = !job || RUNNING.has(job.state) || Date.now() < jv.fastUntil;
  schedule(pollJob, live ? POLL_RUNNING_MS : POLL_IDLE_MS);
}

function renderJob(j) {
  $('#j-topic').textContent = j.topic;
  $('#j-state').replaceChildren(stateBadge(j.state));
  $('#j-state').dataset.state = j.state;
  $('#j-phase').textContent = j.stop_requested && RUNNING.has(j.state) ? `${j.stop_requested} requested`
    : j.training && j.training.step === 'cross-validating'
      ? `cross-validating and training the classifier on ${fmtInt(j.training.sites)} websites (${fmtInt(j.training.pages)} pages)`
    : j.training ? `reading the training websites: ${fmtInt(j.training.sites_read)} of ${fmtInt(j.training.sites)}, ${fmtInt(j.training.pages)} pages`
    : '';
  const strategy = (j.params && j.params.strategy) || 'website';
  $('#j-strategy').textContent = strategy === 'website' ? '' : `${strategy} crawler (baseline)`;
  $('#j-pages').textContent = fmtInt(j.counters.pages_downloaded);
  $('#j-examined').textContent = fmtInt(j.counters.sites_examined);
  $('#j-relevant').textContent = fmtInt(j.counters.relevant_found);
  $('#j-harvest').textContent = fmtPct(j.harvest_rate);
  $('#j-pprs').textContent = fmtNum(j.pprs);
  const start = j.started_at && Date.parse(j.started_at);
  const end = j.finished_at ? Date.parse(j.finished_at) : Date.now();
  $('#j-elapsed').textContent = start ? fmtDuration((end - start) / 1000) : '–';
  const rate = j.pages_per_second || {};
  const recent = RUNNING.has(j.state) && rate.recent != null ? ` (now ${fmtNum(rate.recent)})` : '';
  $('#j-rate').textContent = rate.overall == null ? '–' : `${fmtNum(rate.overall)}${recent}`;
  $('#j-border').textContent = j.border_sites == null ? '–'
    : `${fmtInt(j.border_sites)}${j.border_sites_capped ? '+' : ''} sites`;
  const fetches = Object.entries(j.fetches || {}).sort((a, b) => b[1] - a[1]);
  $('#j-fetches').textContent = fetches.length
    ? `Fetches: ${fetches.map(([k, n]) => `${k.replace(/_/g, ' ')} ${fmtInt(n)}`).join(' · ')}` : '';
  $('#j-judge').textContent = judgeWords(j);
  const win = j.params && j.params.pprs_window;
  for (const note of document.querySelectorAll('.window-note'))
    note.textContent = win ? `Windowed: over the last ${fmtInt(win)} pages downloaded.` : '';

  // Progress toward each stop condition that is set.
  const box = $('#j-progress');
  box.replaceChildren();
  const labels = {max_pages: 'pages', max_relevant_sites: 'relevant sites', max_seconds: 'time'};
  for (const [k, frac] of Object.entries(j.progress || {})) {
    if (frac == null) continue;
    const row = document.createElement('div');
    row.className = 'progress-row';
    const label = document.createElement('label');
    label.textContent = `${labels[k] || k} (${k} = ${fmtInt(j.params[k])})`;
    const bar = document.createElement('progress');
    bar.max = 1;
    bar.value = Math.min(1, frac);
    bar.id = `progress-${k}`;
    label.htmlFor = bar.id;
    const pc = document.createElement('span');
    pc.textContent = `${Math.round(100 * Math.min(1, frac))} %`;
    row.append(label, bar, pc);
    box.appendChild(row);
  }
  if (!box.children.length) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = 'No page, site or time budget: the crawl runs until its border is empty.';
    box.appendChild(p);
  }
  $('#j-stop').textContent = j.stop_reason ? `Stopped: ${j.stop_reason.replace(/_/g, ' ')}.` : '';
  // A runner gone without a word (kill -9, a database it lost for good) leaves the
  // state as it was: its lease tells.
  const gone = j.runner && !j.runner.alive
    ? `Nobody runs this job now: ${j.runner.worker ? `its runner ${j.runner.worker} last answered ${j.runner.heartbeat_at}` : 'it has no runner'}. ` +
      `A serve takes it up, or: sitescout crawl --resume ${j.id}.`
    : '';
  // What the job's examples are worth (job/jobwarn.h), said from its creation on.
  const warnings = j.warnings || [];
  $('#j-warnings').replaceChildren(...warnings.map((w) => {
    const li = document.createElement('li');
    li.textContent = `Warning: ${w.message}`;
    li.dataset.code = w.code;
    return li;
  }));
  $('#j-warnings').hidden = warnings.length === 0;
  const note = j.error ? `${j.state === 'failed' ? 'Failed' : 'Note'}: ${j.error}` : '';
  $('#j-error').hidden = !note && !gone;
  $('#j-error').textContent = [note, gone].filter(Boolean).join(' ');

  const running = ['training', 'crawling'].includes(j.state);
  $('#b-pause').disabled = !running || j.stop_requested === 'pause';
  $('#b-resume').disabled = !(j.state === 'paused' || (running && j.stop_requested === 'pause'));
  $('#b-stop').disabled = !(RUNNING.has(j.state) || j.state === 'paused') || j.stop_requested === 'stop';
  $('#seeds-form').hidden = !(RUNNING.has(j.state) || j.state === 'paused');
}

/* Start websites added to the running job (POST /seeds): read next. */
async function addSeeds(ev) {
  ev.preventDefault();
  const jv = jobView;
  const urls = $('#f-seeds').value.split(/[\s,]+/).filter(Boolean);
  const msg = $('#seeds-msg');
  msg.classList.remove('error');
  if (!urls.length) {
    msg.textContent = 'Give one or more website URLs.';
    msg.classList.add('error');
    return;
  }
  $('#b-seeds').disabled = true;
  try {
    const r = await api('POST', `/api/jobs/${jv.id}/seeds`, JSON.stringify({start_sites: urls}));
    const next = r.start_sites.filter((s) => s.state === 'border').map((s) => s.host);
    const known = r.start_sites.filter((s) => s.state !== 'border').map((s) => `${s.host} (${s.state})`);
    msg.textContent = [next.length ? `Read next: ${next.join(', ')}.` : '',
                       known.length ? `Known already: ${known.join(', ')}.` : ''].filter(Boolean).join(' ');
    $('#f-seeds').value = '';
    schedule(pollJob, 200);
  } catch (err) {
    msg.textContent = `Not added: ${err.message}`;
    msg.classList.add('error');
  } finally {
    $('#b-seeds').disabled = false;
  }
}

/* Who gives the job's verdicts (docs/api.md, the job's judge): the crawl model's line. */
function judgeWords(j) {
  const jd = j.judge;
  if (!jd) return '';
  if (jd.mode !== 'crawl_model')
    return 'Verdicts: the page classifier\'s, given as each website is read (judge = examination).';
  const l = jd.last;
  if (!l) {
    return 'Verdicts: the page classifier\'s as each website is read, until a model learnt from '
      + 'the crawl judges them again (judge = crawl_model).';
  }
  return `Verdicts: the crawl model judged the websites again ${jd.models === 1 ? 'once' : `${fmtInt(jd.models)} times`}; `
    + `the last, model #${l.model_id} at ${fmtTime(l.created_at)}, `
    + `learnt from ${fmtInt(l.pages)} pages (${fmtInt(l.terms)} terms; topic share ${fmtNum(l.target_prior, 3)}`
    + `${l.threshold == null ? '' : `; threshold ${fmtThreshold(l.threshold)}`}).`;
}

function addMetrics(samples) {
  const jv = jobView;
  if (!samples.length && !jv.first) return;
  for (const s of samples) {
    jv.data[0].push(s.pages);
    jv.data[1].push(s.harvest_rate);
    jv.data[2].push(s.harvest_rate_window);
    jv.data[3].push(s.pprs);
    jv.data[4].push(s.pprs_window);
    jv.since = s.elapsed_s;
  }
  const d = jv.data;
  jv.harvest.setData([d[0], d[1], d[2]]);
  jv.pprs.setData([d[0], d[3], d[4]]);
}

function renderSites(s) {
  const jv = jobView;
  const tbody = $('#sites-table tbody');
  tbody.replaceChildren();
  for (const site of s.sites) {
    const tr = document.createElement('tr');
    if (!jv.sites.has(site.host)) {
      jv.sites.add(site.host);
      if (!jv.first) tr.className = 'new';
    }
    const label = siteLabel(site);
    const host = siteLinks(jv.id, site.host, site.homepage);
    if (label !== undefined) host.appendChild(labelMark(label));
    else if (site.judged_by === 'crawl_model') host.appendChild(judgedMark());
    cell(tr, host);
    const conf = document.createElement('span');
    conf.className = 'conf';
    conf.style.setProperty('--w', `${Math.round(100 * site.confidence)}%`);
    conf.textContent = site.confidence.toFixed(3);
    cell(tr, conf, 'num');
    cell(tr, fmtInt(site.pages_visited), 'num');
    cell(tr, site.role || '');
    cell(tr, fmtTime(site.found_at), 'nowrap');
    cell(tr, labelButtons(jv.id, site.host, label, '#sites-label-error', jobLabelled), 'nowrap');
    tbody.appendChild(tr);
  }
  $('#sites-count').textContent = s.total ? `(${fmtInt(s.total)})` : '';
  $('#sites-empty').hidden = s.sites.length !== 0;
}

/*
 * "relevant sites, all" counts the job's relevant start sites too, the table of sites
 * found does not: say so under the figure, so that the two numbers add up.
 */
function renderRelevantSplit(job, found, starts) {
  const startRelevant = starts.sites.filter((x) => x.relevant).length;
  $('#j-relevant-split').textContent = startRelevant || found.total !== job.counters.relevant_found
    ? `${fmtInt(found.total)} found + ${fmtInt(startRelevant)} start ${startRelevant === 1 ? 'site' : 'sites'}`
    : '';
}

/* A row of a table of verdicts (start sites, least sure): host, verdict, confidence,
 * pages, the label's buttons (errors said in errorSel). */
function verdictRow(site, errorSel) {
  const tr = document.createElement('tr');
  const label = siteLabel(site);
  const host = siteLinks(jobView.id, site.host, site.homepage);
  if (label !== undefined) host.appendChild(labelMark(label));
  else if (site.judged_by === 'crawl_model') host.appendChild(judgedMark());
  cell(tr, host);
  cell(tr, site.relevant ? 'relevant' : 'not relevant');
  cell(tr, fmtNum(site.confidence, 3), 'num');
  cell(tr, fmtInt(site.pages_visited), 'num');
  cell(tr, labelButtons(jobView.id, site.host, label, errorSel, jobLabelled), 'nowrap');
  return tr;
}

/* The job's own start sites with their verdicts, apart from the websites found. */
function renderStartSites(s) {
  const tbody = $('#start-table tbody');
  tbody.replaceChildren(...s.sites.map((site) => verdictRow(site, '#start-label-error')));
  const relevant = s.sites.filter((x) => x.relevant).length;
  $('#start-count').textContent = s.total ? `(${fmtInt(s.total)}: ${fmtInt(relevant)} relevant)` : '';
  $('#start-card').hidden = s.total === 0;
}

const UNSURE_ROWS = 10;

/* The websites found whose verdicts are least sure (order=unsure), the labelled ones
 * aside (their verdict is the user's; the API lists them last). */
function renderUnsure(u) {
  const rows = u.sites.filter((x) => siteLabel(x) === undefined);
  $('#unsure-table tbody').replaceChildren(...rows.map((site) => verdictRow(site, '#unsure-label-error')));
  $('#unsure-card').hidden = rows.length === 0;
}

/* A host linked to its site page (#/jobs/ID/sites/HOST), then to its homepage. */
function siteLinks(job, host, homepage) {
  const span = document.createElement('span');
  const a = document.createElement('a');
  a.href = `#/jobs/${job}/sites/${encodeURIComponent(host)}`;
  a.textContent = host;
  a.className = 'site';
  const ext = document.createElement('a');
  ext.href = homepage || `http://${host}/`;
  ext.textContent = '\u2197';
  ext.title = 'open the homepage';
  ext.className = 'ext';
  ext.target = '_blank';
  ext.rel = 'noopener noreferrer';
  span.append(a, ext);
  return span;
}

/* The relevant list's marker of a verdict the crawl model gave. */
function judgedMark() {
  const m = document.createElement('span');
  m.className = 'judged-mark';
  m.textContent = 'model';
  m.title = 'judged by the crawl model, from the pages read';
  return m;
}

const BORDER_ROWS = 50;

/* ---- labels: the user's verdicts (docs/api.md, "Labels") ---- */

/* After a label, how long the job page polls every second: the job judges again ~1 s later. */
const LABEL_FAST_MS = 5000;
/* The site page loads again this long after a label, to show the job's new judging. */
const LABEL_RELOAD_MS = 2000;

const labelPath = (job, host) => `/api/jobs/${job}/sites/${encodeURIComponent(host)}/label`;

/* GET /api/jobs/ID/labels as a map: host -> true (relevant) or false (not). */
const labelMap = (l) => new Map(l.labels.map((x) => [x.host, x.relevant]));

/* A listed website's label: the labels' map, else its verdict when the user gave it. */
function siteLabel(site) {
  if (jobView.labels.has(site.host)) return jobView.labels.get(site.host);
  return site.judged_by === 'user' ? site.relevant : undefined;
}

/* The two buttons, one per label; the one matching the website's label is pressed. */
const LABEL_BUTTONS = [
  {relevant: true, text: '✓', words: 'relevant', cls: 'yes'},
  {relevant: false, text: '✗', words: 'not relevant', cls: 'no'},
];

/* The marker of a website the user labelled, next to its host. */
function labelMark(label) {
  const m = document.createElement('span');
  m.className = `label-mark ${label ? 'yes' : 'no'}`;
  m.textContent = `labelled ${label ? '✓' : '✗'}`;
  m.title = `your label: ${label ? 'relevant' : 'not relevant'} (judged by you)`;
  return m;
}

/*
 * A website's ✓ and ✗ (label (true, false or undefined) is its label now): a click on
 * the one not pressed labels it (PUT), on the pressed one takes the label back
 * (DELETE). Then done(err, message) with the request's error, said in errorSel.
 */
function labelButtons(job, host, label, errorSel, done) {
  const span = document.createElement('span');
  span.className = 'label-btns';
  span.setAttribute('role', 'group');
  span.setAttribute('aria-label', `your label of ${host}`);
  for (const b of LABEL_BUTTONS) {
    const btn = document.createElement('button');
    const pressed = label === b.relevant;
    btn.type = 'button';
    btn.className = `label-btn ${b.cls}`;
    btn.textContent = b.text;
    btn.setAttribute('aria-pressed', String(pressed));
    btn.setAttribute('aria-label', `label ${host} ${b.words}`);
    btn.title = pressed ? `labelled ${b.words}: click to take the label back` : `label it ${b.words}`;
    btn.addEventListener('click', async () => {
      for (const x of span.children) x.disabled = true;
      span.setAttribute('aria-busy', 'true');
      const box = $(errorSel);
      try {
        if (pressed) await api('DELETE', labelPath(job, host));
        else await api('PUT', labelPath(job, host), JSON.stringify({relevant: b.relevant}));
        box.hidden = true;
      } catch (err) {
        if (err.status !== 401) {
          box.textContent = pressed ? `The label of ${host} was not taken back: ${err.message}`
            : `${host} was not labelled ${b.words}: ${err.message}`;
          box.hidden = false;
        }
      } finally {
        for (const x of span.children) x.disabled = false;
        span.removeAttribute('aria-busy');
      }
      refocus = btn.getAttribute('aria-label');
      done();
    });
    span.appendChild(btn);
  }
  return span;
}

/*
 * The aria-label of the label button last clicked: the lists are drawn anew after a
 * label, and keyboard focus goes back to that website's button where it is still shown.
 */
let refocus = null;

function restoreFocus(root) {
  if (!refocus) return;
  const b = root.querySelector(`button[aria-label="${CSS.escape(refocus)}"]`);
  refocus = null;
  if (b && (document.activeElement === document.body || !document.activeElement)) b.focus();
}

/* A label given or taken back on the job page: draw at once, then poll fast a while. */
function jobLabelled() {
  if (!jobView) return;
  jobView.fastUntil = Date.now() + LABEL_FAST_MS;
  pollJob();
}

/* The user's labels of the job, the last given first, each with its buttons. */
function renderLabels(l) {
  const tbody = $('#labels-table tbody');
  tbody.replaceChildren();
  for (const x of l.labels) {
    const tr = document.createElement('tr');
    const host = siteLinks(jobView.id, x.host);
    host.appendChild(labelMark(x.relevant));
    cell(tr, host);
    cell(tr, x.state || '');
    cell(tr, x.confidence == null ? '–' : fmtNum(x.confidence, 3), 'num');
    cell(tr, fmtTime(x.labelled_at), 'nowrap');
    cell(tr, labelButtons(jobView.id, x.host, x.relevant, '#labels-label-error', jobLabelled), 'nowrap');
    tbody.appendChild(tr);
  }
  const yes = l.labels.filter((x) => x.relevant).length;
  $('#labels-count').textContent = `(${fmtInt(l.labels.length)}: ${fmtInt(yes)} ✓, `
    + `${fmtInt(l.labels.length - yes)} ✗)`;
  /* Kept while it shows an error, so that the error stays readable. */
  $('#labels-card').hidden = l.labels.length === 0 && $('#labels-label-error').hidden;
}

function renderBorder(b) {
  const tbody = $('#border-table tbody');
  tbody.replaceChildren();
  b.border.forEach((site, i) => {
    const tr = document.createElement('tr');
    const label = jobView.labels.get(site.host);
    cell(tr, String(i + 1), 'num');
    const host = siteLinks(jobView.id, site.host, site.homepage);
    if (label !== undefined) host.appendChild(labelMark(label));
    cell(tr, host);
    cell(tr, fmtNum(site.rank, 3), 'num');
    cell(tr, fmtInt(site.in_sites), 'num');
    cell(tr, site.role || '');
    cell(tr, fmtTime(site.discovered_at), 'nowrap');
    cell(tr, labelButtons(jobView.id, site.host, label, '#border-label-error', jobLabelled), 'nowrap');
    tbody.appendChild(tr);
  });
  const total = `${fmtInt(b.total)}${b.total_capped ? '+' : ''}`;
  $('#border-count').textContent = b.total > b.border.length
    ? `(the first ${fmtInt(b.border.length)} of ${total})` : `(${total})`;
  $('#border-table').hidden = b.border.length === 0;
  $('#border-empty').hidden = b.border.length !== 0;
}

/* ---- #/jobs/ID/sites/HOST: one website's verdict explained ---- */

let siteChart = null;
const PAGE_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];

/*
 * An undecided website above 1/2 on too few classified pages is not relevant (issue 14);
 * said only of the examination's own verdict (a crawl model's is another).
 */
const tooFewPages = (d) => (!d.relevant && d.confidence > 0.5 && !(d.judged && d.judged.by === 'crawl_model')
  ? ', which rests on too few classified pages to call the website relevant (min_pages_relevant).'
  : '.');

const VERDICT_BY = {
  threshold: (d) => `The verdict is decided: max(Pr[target | pages], Pr[other | pages]) reached `
    + `p_threshold = ${fmtNum(d.p_threshold, 2)} after ${fmtInt(d.stop.pages_to_decide)} classified pages.`,
  decide_limit: (d) => `Undecided after the classification budget (max_pages_to_decide) was `
    + `spent: judged by its posterior as it stood after ${fmtInt(d.stop.pages_to_decide)} classified pages`
    + tooFewPages(d),
  undecided: (d) => `The reading ended before the posterior reached p_threshold = `
    + `${fmtNum(d.p_threshold, 2)}: judged by its posterior as it stood` + tooFewPages(d),
};

const STOP_WORDS = {
  verdict: 'Reading stopped at the verdict.',
  linkrank: 'After the verdict, reading went on for links until LinkRank reached its threshold'
    + ' (from the tenth page on, sooner for a website the crawl model calls off topic).',
  max_pages_per_site: 'Reading stopped at the page limit per website (max_pages_per_site).',
  no_more_pages: 'Reading stopped: no page of the website was left to read.',
  job_max_pages: 'Reading stopped: the job\'s page budget (max_pages) had no page to spare for more links.',
  job_stopped: 'Reading stopped when the job stopped or paused.',
  unread: 'None of its pages could be read, so it has no verdict',
};

function openSite(id, host) {
  showView('site');
  document.title = `sitescout: ${host}`;
  $('#s-back').href = `#/jobs/${id}`;
  $('#s-back').textContent = `\u2190 job ${id}`;
  $('#s-job').textContent = id;
  $('#s-host').textContent = host;
  $('#s-error').hidden = true;
  $('#s-label-error').hidden = true;
  $('#s-label').hidden = true;
  $('#view-site').dataset.loaded = '';
  loadSite(id, host);
}

async function loadSite(id, host) {
  let d, l;
  try {
    [d, l] = await Promise.all([
      api('GET', `/api/jobs/${id}/sites/${encodeURIComponent(host)}/pages`),
      api('GET', `/api/jobs/${id}/labels`),
    ]);
  } catch (err) {
    if (err.status === 401) return;
    $('#s-error').textContent = err.status === 404 ? `Job ${id} has no website ${host}.` : err.message;
    $('#s-error').hidden = false;
    return;
  }
  if (!view || view.name !== 'site' || view.id !== id || view.host !== host) return;
  renderSiteLabel(id, d, labelMap(l).get(d.host));
  renderSite(id, d); /* last: it marks the view loaded */
}

/*
 * The site page's ✓ and ✗. A training website has none: it is one of the job's
 * examples, labelled by its list. After a label the page loads again at once (the
 * verdict is the label) and once more a little later (the job has judged again).
 */
function renderSiteLabel(id, d, label) {
  const box = $('#s-label');
  box.hidden = d.training != null;
  if (d.training) return;
  $('#s-label-mark').replaceChildren(...(label === undefined ? [] : [labelMark(label)]));
  $('#s-label-words').textContent = label === undefined
    ? 'Is this website relevant to the topic? Your label becomes its verdict and the job learns from it.'
    : 'Your label is its verdict; the job learns from it. Click the pressed button to take it back.';
  const host = d.host;
  $('#s-label-buttons').replaceChildren(labelButtons(id, host, label, '#s-label-error', () => {
    clearTimeout(timer);
    loadSite(id, host).then(() => restoreFocus($('#s-label')));
    timer = setTimeout(() => loadSite(id, host), LABEL_RELOAD_MS);
  }));
}

/*
 * A training website was not judged by the crawl: it is one of the job's own examples,
 * labelled by the list it came from, and its pages trained the page classifier.
 */
function trainingWords(d) {
  const t = d.training;
  return `A training example: the job's ${t.from} lists it, so it counts as ${t.label} `
    + `(confidence ${fmtInt(d.confidence)} by its label, not by a verdict). Its pages trained the page `
    + `classifier; below, each page's Pr[page | target] as the trained classifier scores it `
    + `(${fmtInt(t.pages_classified)} classified, mean ${fmtNum(t.mean_page_confidence, 3)}).`;
}

/* A number with its sign, 2 decimals. */
function signed(x) {
  return `${x > 0 ? '+' : x < 0 ? '\u2212' : ''}${fmtNum(Math.abs(x), 2)}`;
}

/* Who gave the verdict, and when (docs/api.md, "A verdict explained": judged). */
function judgedWords(d) {
  const j = d.judged;
  if (!j) return '';
  if (j.by === 'user') {
    return `Judged by you: you labelled it ${d.relevant ? 'relevant' : 'not relevant'} at ${fmtTime(j.at)}; `
      + `no judging changes it.${d.pages.length ? ' Below, how the page classifier judged it while it was read.' : ''}`;
  }
  if (j.by !== 'crawl_model') return `Judged by the page classifier while it was read, at ${fmtTime(j.at)}.`;
  const m = j.model || {};
  const figures = [m.pages == null ? null : `learnt from ${fmtInt(m.pages)} pages`,
    m.threshold == null ? null : `threshold ${fmtThreshold(m.threshold)}`].filter(Boolean).join('; ');
  const last = d.pages.length ? d.pages[d.pages.length - 1].posterior : null;
  const cm = d.crawl_model;
  const above = cm && cm.score > cm.threshold;
  const links = j.links;
  const withLinks = cm && cm.link_evidence != null;
  const yes = cm && cm.text_evidence + (withLinks ? cm.link_evidence : 0) > 0;
  const verdict = cm && cm.vetoed && j.like_rejected
    ? `; but it is more like ${j.like_rejected}, which you labelled not relevant, than like any `
      + 'relevant website: not relevant'
    : cm && cm.vetoed
      ? '; but the page classifier called it not relevant as it read it, and its links did not '
        + 'say otherwise strongly enough: not relevant'
      : d.examined_relevant === false && yes
        ? '; the page classifier called it not relevant as it read it, but its links say relevant '
          + 'strongly enough to overrule it: relevant'
        : `, so ${yes ? 'relevant' : 'not relevant'}`;
  const linkWords = !withLinks || !links ? ''
    : `; its links weigh in: ${fmtInt(links.relevant)} of its ${fmtInt(links.count)} links to or from `
      + `examined websites are to or from relevant ones, evidence ${signed(cm.link_evidence)} nats `
      + `against the text's ${signed(cm.text_evidence)}`;
  const score = !cm ? '' : ` Its score, the mean of its pages' Pr[target | page] by this model weighted by `
    + `each page's weight, is ${fmtNum(cm.score, 3)}: ${above ? 'above' : 'not above'} `
    + `the threshold ${fmtThreshold(cm.threshold)}${linkWords}${verdict}.`;
  return `Judged by the crawl model #${j.model_id}${figures ? ` (${figures})` : ''} at ${fmtTime(j.at)}, `
    + `from the pages read.${score} Below, ${cm ? "each page as the crawl model sees it (the last two columns) and " : ''}`
    + 'how the page classifier judged it while it was read'
    + `${last == null ? '' : ` (Pr[target | pages] ${fmtNum(last, 4)})`}.`;
}

function renderSite(id, d) {
  const verdict = d.training ? `training example: ${d.training.label}`
    : d.relevant == null ? d.state : d.relevant ? 'relevant' : 'not relevant';
  $('#s-verdict').textContent = verdict;
  $('#s-verdict').className = `state ${d.relevant ? 'state-done' : d.relevant === false ? 'state-failed' : ''}`;
  $('#s-home').href = d.homepage;
  $('#s-conf').textContent = fmtNum(d.confidence, 4);
  $('#s-prior').textContent = fmtNum(d.prior, 3);
  $('#s-threshold').textContent = fmtNum(d.p_threshold, 2);
  $('#s-pages').textContent = fmtInt(d.pages.length);
  $('#s-decide').textContent = d.training ? '–' : fmtInt(d.stop.pages_to_decide);
  $('#s-state').textContent = d.state;
  $('#s-judged').textContent = judgedWords(d);
  $('#s-judged').dataset.by = d.judged ? d.judged.by : '';
  $('#s-judged').hidden = !d.judged;
  const how = d.stop.verdict_by && VERDICT_BY[d.stop.verdict_by];
  $('#s-how').textContent = d.training ? trainingWords(d) : how ? how(d) : '';
  const words = d.stop.reason && STOP_WORDS[d.stop.reason];
  $('#s-stop').textContent = d.training
    ? 'It was read during training, before the crawl began; the crawl does not examine it again.'
    : !d.stop.reason
    ? (d.state === 'examined'
      ? 'Why the reading stopped was not recorded (a job crawled before it was, or a page crawler).'
      : `Not examined (${d.state}).`)
    : d.stop.reason === 'unread' ? `${words}: ${d.stop.error || 'unknown'}.` : words || d.stop.reason;
  $('#s-stop').dataset.reason = d.stop.reason || '';

  const tbody = $('#spages-table tbody');
  tbody.replaceChildren();
  for (const p of d.pages) {
    const tr = document.createElement('tr');
    cell(tr, String(p.n), 'num');
    cell(tr, p.url, 'url');
    cell(tr, p.error ? `${p.error}${p.status ? ` (${p.status})` : ''}` : String(p.status ?? ''));
    cell(tr, p.confidence == null ? 'not classified' : fmtNum(p.confidence, 3), 'num');
    cell(tr, fmtNum(p.posterior, 4), 'num');
    if (d.crawl_model) {
      cell(tr, p.model_pr == null ? '–' : fmtNum(p.model_pr, 3), 'num model-col');
      cell(tr, p.model_weight == null ? '–' : fmtInt(p.model_weight), 'num model-col');
    }
    tbody.appendChild(tr);
  }
  for (const th of document.querySelectorAll('#spages-table th.model-col')) th.hidden = !d.crawl_model;
  $('#spages-count').textContent = `(${fmtInt(d.pages.length)})`;
  $('#spages-empty').hidden = d.pages.length !== 0;

  const edges = $('#in-table tbody');
  edges.replaceChildren();
  for (const e of d.edges_in) {
    const tr = document.createElement('tr');
    cell(tr, siteLinks(id, e.host));
    cell(tr, fmtInt(e.page_count), 'num');
    cell(tr, fmtNum(e.conf_sum, 3), 'num');
    cell(tr, fmtNum(e.source_confidence, 3), 'num');
    cell(tr, fmtNum(e.weight, 3), 'num');
    edges.appendChild(tr);
  }
  $('#in-mode').textContent = d.edge_weights ? `(weights: ${d.edge_weights})` : '';
  $('#in-table').hidden = d.edges_in.length === 0;
  $('#in-empty').hidden = d.edges_in.length !== 0;

  drawPosterior(d);
  $('#view-site').dataset.loaded = 'true';
}

/*
 * The posterior after each page (page 0: the prior), and the two decision lines; for a
 * training website, which has no posterior, its pages' Pr[page | target].
 */
function drawPosterior(d) {
  const el = $('#chart-posterior');
  const xs = [], post = [], hi = [], lo = [];
  const t = d.p_threshold;
  const training = d.training != null;
  $('#post-h').textContent = training ? 'Pr[page | target] of each training page' : 'Pr[target | pages so far]';
  if (d.prior != null && !training) {
    xs.push(0);
    post.push(d.prior);
  }
  for (const p of d.pages) {
    const y = training ? p.confidence : p.posterior;
    if (y == null) continue;
    xs.push(p.n);
    post.push(y);
  }
  for (let i = 0; i < xs.length; i++) {
    hi.push(t == null || training ? null : t);
    lo.push(t == null || training ? null : 1 - t);
  }
  const fmt = (u, v) => fmtNum(v, 4);
  const opts = {
    width: Math.max(300, el.clientWidth),
    height: 260,
    scales: {x: {time: false}, y: {range: () => [0, 1]}},
    /* Pages are whole: ticks on integers only. */
    axes: [{label: 'pages read', incrs: PAGE_INCRS, values: (u, ticks) => ticks.map((v) => fmtInt(v))},
           {size: 50}],
    legend: {live: true},
    cursor: {drag: {x: false, y: false}},
    series: [
      {label: 'page', value: (u, v) => (v == null ? '–' : String(v))},
      {label: training ? 'Pr[page | target]' : 'Pr[target | pages]', stroke: '#2563eb', width: 2,
       points: {show: true}, value: fmt},
      {label: 'p_threshold (relevant)', stroke: '#059669', width: 1, dash: [6, 4], points: {show: false},
       value: fmt, show: !training},
      {label: '1 - p_threshold (not relevant)', stroke: '#dc2626', width: 1, dash: [6, 4], points: {show: false},
       value: fmt, show: !training},
    ],
  };
  if (siteChart) siteChart.destroy();
  el.replaceChildren();
  siteChart = xs.length ? new uPlot(opts, [xs, post, hi, lo], el) : null;
  if (!siteChart) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = 'No posterior recorded for this website.';
    el.appendChild(p);
  }
}


/* ---- #/jobs/ID/graph: a picture of what the job found ---- */

/*
 * The job's examined websites (GET /api/jobs/ID/graph: the relevant first, up to
 * GRAPH_NODES) and the links among them, laid out by a small force simulation on a
 * canvas: links pull, websites push each other apart (only those in neighbouring cells
 * of a grid, so a step costs about n, not n²), a weak pull to the centre. The
 * simulation runs a few steps a frame, within GRAPH_FRAME_MS, drawing after each frame,
 * so the page stays responsive and the first picture comes at once; it stops when it
 * has cooled. A website's size is its confidence, its colour its verdict or label;
 * start sites have a dark ring. A click on a website opens its verdict page.
 */
const GRAPH_NODES = 2000;
const GRAPH_FRAME_MS = 12;    // simulation time a frame, at most
const GRAPH_LINK = 30;        // the links' rest length, in layout units
const GRAPH_COOL = 0.985;     // the temperature's decay a step
const GRAPH_COLD = 0.01;      // it stops below this
const GRAPH_COLOURS = {
  labelYes: '#047857', labelNo: '#b91c1c', relevant: '#34d399', other: '#cbd5e1',
  edge: 'rgba(100, 116, 139, 0.35)', start: '#111827',
};

let graphView = null;

function openGraph(id) {
  showView('graph');
  document.title = `sitescout: job ${id}, what it found`;
  $('#g-back').href = `#/jobs/${id}`;
  $('#g-back').textContent = `\u2190 job ${id}`;
  $('#g-job').textContent = id;
  $('#g-error').hidden = true;
  $('#g-summary').textContent = '';
  graphView = new GraphView(id, $('#g-canvas'));
  graphView.fetch();
}

class GraphView {
  constructor(id, canvas) {
    this.id = id;
    this.canvas = canvas;
    this.nodes = [];           // {host, role, confidence, relevant, label, x, y, vx, vy, r}
    this.byHost = new Map();
    this.edges = [];           // [source index, destination index]
    this.alpha = 1;
    this.frame = 0;
    this.stopped = false;
    this.view = null;          // the world-to-screen transform of the last drawing
    this.steps = 0;
    canvas.dataset.drawn = '';
    canvas.dataset.settled = '';
  }

  stop() {
    this.stopped = true;
    cancelAnimationFrame(this.frame);
  }

  async fetch() {
    let d;
    try {
      d = await api('GET', `/api/jobs/${this.id}/graph?limit=${GRAPH_NODES}`);
    } catch (err) {
      if (err.status === 401 || this.stopped) return;
      $('#g-error').textContent = err.status === 404 ? `There is no job ${this.id}.` : err.message;
      $('#g-error').hidden = false;
      return;
    }
    if (!this.stopped) this.load(d);
  }

  /* Take a graph answer; websites already placed keep their places. */
  load(d) {
    const t0 = performance.now();
    const old = this.byHost;
    this.byHost = new Map();
    this.nodes = d.nodes.map((n, i) => {
      const was = old.get(n.host);
      /* New websites on a sunflower spiral, the relevant (first) in the middle. */
      const r = 0.6 * GRAPH_LINK * Math.sqrt(i + 0.5), a = i * 2.399963;
      const node = {...n, x: was ? was.x : r * Math.cos(a), y: was ? was.y : r * Math.sin(a), vx: 0, vy: 0,
                    r: 3 + 7 * (n.confidence || 0)};
      this.byHost.set(n.host, node);
      return node;
    });
    const index = new Map(this.nodes.map((n, i) => [n.host, i]));
    this.edges = [];
    for (const e of d.edges) {
      const a = index.get(e.src), b = index.get(e.dst);
      if (a !== undefined && b !== undefined) this.edges.push([a, b]);
    }
    this.alpha = old.size ? 0.3 : 1;
    this.hover = null;
    $('#g-hover').textContent = '';
    const relevant = d.nodes.filter((n) => n.relevant).length;
    const labelled = d.nodes.filter((n) => n.label != null).length;
    $('#g-summary').textContent = `${fmtInt(d.nodes.length)} websites`
      + `${d.total > d.nodes.length ? ` of ${fmtInt(d.total)} examined (the relevant first)` : ''}: `
      + `${fmtInt(relevant)} relevant, ${fmtInt(labelled)} labelled by you; `
      + `${fmtInt(d.edges.length)}${d.edges_capped ? '+' : ''} links between them.`;
    $('#g-summary').dataset.nodes = String(d.nodes.length);
    $('#g-summary').dataset.edges = String(this.edges.length);
    this.canvas.dataset.settled = '';
    this.draw();
    this.canvas.dataset.drawn = 'true';
    this.firstDrawMs = performance.now() - t0;
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.tick());
  }

  /* Simulation steps for up to GRAPH_FRAME_MS, then a drawing; again next frame until cold. */
  tick() {
    if (this.stopped) return;
    const start = performance.now(), end = start + GRAPH_FRAME_MS;
    do this.step(); while (this.alpha > GRAPH_COLD && performance.now() < end);
    const t = performance.now();
    this.simMs = (this.simMs || 0) + (t - start); // the simulation's time (the browser test prints it)
    this.draw();
    this.drawMs = performance.now() - t; // the last drawing's time (the browser test prints it)
    if (this.alpha > GRAPH_COLD) this.frame = requestAnimationFrame(() => this.tick());
    else this.canvas.dataset.settled = 'true';
  }

  step() {
    const ns = this.nodes, k = GRAPH_LINK, alpha = this.alpha;
    /* Push apart, within the 3 x 3 neighbouring cells of a grid of cells 2k wide. */
    const cell = 2 * k, grid = new Map();
    const key = (cx, cy) => (cx + 32768) * 65536 + (cy + 32768);
    for (let i = 0; i < ns.length; i++) {
      const kk = key(Math.floor(ns[i].x / cell), Math.floor(ns[i].y / cell));
      let list = grid.get(kk);
      if (!list) grid.set(kk, list = []);
      list.push(i);
    }
    for (let i = 0; i < ns.length; i++) {
      const a = ns[i], cx = Math.floor(a.x / cell), cy = Math.floor(a.y / cell);
      for (let gx = cx - 1; gx <= cx + 1; gx++) {
        for (let gy = cy - 1; gy <= cy + 1; gy++) {
          const list = grid.get(key(gx, gy));
          if (!list) continue;
          for (const j of list) {
            if (j <= i) continue;
            const b = ns[j];
            let dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy;
            if (d2 > cell * cell) continue;
            if (d2 < 0.01) { dx = (i - j) * 0.01; dy = 0.01; d2 = dx * dx + dy * dy; }
            const f = (k * k / d2) * alpha * 0.5;
            a.vx += dx * f; a.vy += dy * f;
            b.vx -= dx * f; b.vy -= dy * f;
          }
        }
      }
    }
    /* Links pull towards their rest length. */
    for (const [i, j] of this.edges) {
      const a = ns[i], b = ns[j];
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = ((d - k) / d) * alpha * 0.1;
      a.vx += dx * f; a.vy += dy * f;
      b.vx -= dx * f; b.vy -= dy * f;
    }
    for (const n of ns) {
      n.vx -= n.x * 0.002 * alpha; n.vy -= n.y * 0.002 * alpha;  // the centre's pull
      n.vx *= 0.6; n.vy *= 0.6;
      n.x += Math.max(-k, Math.min(k, n.vx));
      n.y += Math.max(-k, Math.min(k, n.vy));
    }
    this.alpha *= GRAPH_COOL;
    this.steps++;
  }

  /* Fit the picture to the canvas (device pixels) and draw it. */
  draw() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const ns = this.nodes;
    if (!ns.length) {
      g.fillStyle = '#6b7280';
      g.font = '15px system-ui, sans-serif';
      g.fillText('No website examined yet.', 20, 30);
      this.view = null;
      return;
    }
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const n of ns) {
      if (n.x < x0) x0 = n.x;
      if (n.x > x1) x1 = n.x;
      if (n.y < y0) y0 = n.y;
      if (n.y > y1) y1 = n.y;
    }
    const pad = 16, scale = Math.min((w - 2 * pad) / Math.max(x1 - x0, 1), (h - 2 * pad) / Math.max(y1 - y0, 1), 4);
    const ox = (w - scale * (x0 + x1)) / 2, oy = (h - scale * (y0 + y1)) / 2;
    this.view = {scale, ox, oy};
    g.strokeStyle = GRAPH_COLOURS.edge;
    g.lineWidth = 1;
    g.beginPath();
    for (const [i, j] of this.edges) {
      g.moveTo(ox + scale * ns[i].x, oy + scale * ns[i].y);
      g.lineTo(ox + scale * ns[j].x, oy + scale * ns[j].y);
    }
    g.stroke();
    /* One path a colour (a fill each website would cost a frame at 2,000); the
       irrelevant first, so that the relevant and the labelled are drawn over them. */
    const circle = (n, r) => {
      const x = ox + scale * n.x, y = oy + scale * n.y;
      g.moveTo(x + r, y);
      g.arc(x, y, r, 0, 2 * Math.PI);
    };
    for (const colour of [GRAPH_COLOURS.other, GRAPH_COLOURS.relevant, GRAPH_COLOURS.labelNo,
                          GRAPH_COLOURS.labelYes]) {
      g.beginPath();
      for (const n of ns) if (graphColour(n) === colour) circle(n, n.r);
      g.fillStyle = colour;
      g.fill();
    }
    g.beginPath();
    for (const n of ns) if (n.role === 'start') circle(n, n.r + 1);
    g.lineWidth = 2;
    g.strokeStyle = GRAPH_COLOURS.start;
    g.stroke();
    if (this.hover) {
      const n = this.hover;
      g.beginPath();
      g.arc(ox + scale * n.x, oy + scale * n.y, n.r + 3, 0, 2 * Math.PI);
      g.lineWidth = 2;
      g.strokeStyle = '#2563eb';
      g.stroke();
    }
  }

  /* Where host is drawn, in CSS pixels from the canvas's corner (for a click, or a test). */
  screenOf(host) {
    const n = this.byHost.get(host), v = this.view;
    return n && v ? [v.ox + v.scale * n.x, v.oy + v.scale * n.y] : null;
  }

  /* The website drawn at (x, y), CSS pixels from the canvas's corner, or null. */
  nodeAt(x, y) {
    const v = this.view;
    if (!v) return null;
    let best = null, bestD = Infinity;
    for (const n of this.nodes) {
      const dx = v.ox + v.scale * n.x - x, dy = v.oy + v.scale * n.y - y, d = dx * dx + dy * dy;
      if (d <= (n.r + 3) * (n.r + 3) && d < bestD) { best = n; bestD = d; }
    }
    return best;
  }
}

function graphColour(n) {
  if (n.label === true) return GRAPH_COLOURS.labelYes;
  if (n.label === false) return GRAPH_COLOURS.labelNo;
  return n.relevant ? GRAPH_COLOURS.relevant : GRAPH_COLOURS.other;
}

function graphWords(n) {
  const verdict = n.label != null ? `labelled ${n.label ? 'relevant' : 'not relevant'} by you`
    : n.relevant ? 'relevant' : 'not relevant';
  return `${n.host}: ${verdict}, confidence ${fmtNum(n.confidence, 3)}${n.role === 'start' ? ', a start site' : ''}`;
}

function graphPointer(ev) {
  const gv = graphView;
  if (!gv) return null;
  const box = gv.canvas.getBoundingClientRect();
  return gv.nodeAt(ev.clientX - box.left, ev.clientY - box.top);
}

function wireGraph() {
  const c = $('#g-canvas');
  c.addEventListener('mousemove', (ev) => {
    const n = graphPointer(ev);
    if (!graphView || n === graphView.hover) return;
    graphView.hover = n;
    c.style.cursor = n ? 'pointer' : '';
    $('#g-hover').textContent = n ? graphWords(n) : '';
    graphView.draw();
  });
  c.addEventListener('click', (ev) => {
    const n = graphPointer(ev);
    if (n) location.hash = `#/jobs/${graphView.id}/sites/${encodeURIComponent(n.host)}`;
  });
  /* From the keyboard: the arrows go through the websites (the relevant first), Enter
     opens the one named under the picture. */
  c.addEventListener('keydown', (ev) => {
    const gv = graphView;
    if (!gv || !gv.nodes.length) return;
    const step = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1}[ev.key];
    if (step) {
      ev.preventDefault();
      const i = gv.hover ? gv.nodes.indexOf(gv.hover) : -1;
      gv.hover = gv.nodes[(i + step + gv.nodes.length) % gv.nodes.length];
      $('#g-hover').textContent = graphWords(gv.hover);
      gv.draw();
    } else if (ev.key === 'Enter' && gv.hover) {
      ev.preventDefault();
      location.hash = `#/jobs/${gv.id}/sites/${encodeURIComponent(gv.hover.host)}`;
    }
  });
  $('#g-reload').addEventListener('click', () => { if (graphView) graphView.fetch(); });
}

/* The relevant sites as a CSV file (fetched with the token, then saved). */
async function downloadCsv() {
  const jv = jobView;
  const headers = {};
  const token = sessionStorage.getItem('sitescout.token');
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    const resp = await fetch(`/api/jobs/${jv.id}/sites.csv?relevant=true`, {headers});
    if (!resp.ok) throw new Error(`download failed: HTTP ${resp.status}`);
    const url = URL.createObjectURL(await resp.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = `job-${jv.id}-sites.csv`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    $('#j-error').textContent = err.message;
    $('#j-error').hidden = false;
  }
}

async function control(what) {
  const jv = jobView;
  for (const b of ['#b-pause', '#b-resume', '#b-stop']) $(b).disabled = true;
  try {
    const job = await api('POST', `/api/jobs/${jv.id}/${what}`);
    renderJob(job);
  } catch (err) {
    $('#j-error').textContent = err.message;
    $('#j-error').hidden = false;
  }
  schedule(pollJob, 200);
}

function resizeCharts() {
  if (graphView && view && view.name === 'graph') graphView.draw();
  if (siteChart) siteChart.setSize({width: Math.max(300, $('#chart-posterior').clientWidth), height: 260});
  if (!jobView) return;
  for (const [c, el] of [[jobView.harvest, '#chart-harvest'], [jobView.pprs, '#chart-pprs']])
    c.setSize({width: Math.max(300, $(el).clientWidth), height: 260});
}

/* ---- wiring ---- */

document.addEventListener('DOMContentLoaded', () => {
  $('#job-form').addEventListener('submit', submitJob);
  $('#tab-fields').addEventListener('click', () => selectTab(false));
  $('#tab-json').addEventListener('click', () => selectTab(true));
  $('#b-pause').addEventListener('click', () => control('pause'));
  $('#b-resume').addEventListener('click', () => control('resume'));
  $('#b-csv').addEventListener('click', downloadCsv);
  $('#seeds-form').addEventListener('submit', addSeeds);
  wireGraph();
  $('#jobs-prev').addEventListener('click', () => jobsPage(-1));
  $('#jobs-next').addEventListener('click', () => jobsPage(1));
  $('#jobs-state').addEventListener('change', (ev) => {
    jobsList.state = ev.target.value;
    jobsList.offset = 0;
    pollJobs();
  });
  $('#b-stop').addEventListener('click', () => {
    if (confirm('Stop this job? It cannot be resumed afterwards.')) control('stop');
  });
  $('#token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem('sitescout.token', $('#f-token').value);
    route();
  });
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(resizeCharts, 100);
  });
  window.addEventListener('hashchange', route);
  route();
});
