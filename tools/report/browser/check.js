// A `docsuggest report` page in headless Chromium (Debian's /usr/bin/chromium), with no npm
// package: `node check.js PAGE.html WORKDIR`.
//
// 1. `--dump-dom`: the DOM holds every section and every chart, each chart an inline SVG.
// 2. The DevTools protocol over a pipe (`--remote-debugging-pipe`): loading the page logs no
//    console message, exception or error, and requests nothing but the page itself.
// 3. `--screenshot`: the PNG, decoded here with zlib, is not blank (its pixels vary).
//
// Exits 1 naming every problem found.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { pathToFileURL } = require('node:url');

const CHROMIUM = '/usr/bin/chromium';
// The page's sections and charts (tools/report/src/lib.rs `SECTIONS`, and each section's chart).
const SECTIONS = ['scored', 'families', 'over-time', 'calibration', 'boundary', 'store'];
const CHARTS = ['chart-precision', 'chart-followed', 'chart-unfollowed', 'chart-calibration',
  'chart-boundary', 'chart-store'];

const [page, work] = process.argv.slice(2);
if (!page || !work) {
  console.error('usage: node check.js PAGE.html WORKDIR');
  process.exit(2);
}
const url = pathToFileURL(path.resolve(page)).href;
const problems = [];
let profiles = 0;

/** Chromium's flags, as root, with a fresh profile each run. */
function flags() {
  profiles += 1;
  return ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${path.join(work, `chromium-profile-${profiles}`)}`];
}

function run(args) {
  return execFileSync(CHROMIUM, [...flags(), ...args],
    { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120000, stdio: ['ignore', 'pipe', 'ignore'] });
}

function checkDom() {
  const dom = run(['--dump-dom', url]);
  for (const id of SECTIONS) {
    if (!dom.includes(`<section id="${id}">`)) problems.push(`the DOM has no section ${id}`);
  }
  for (const id of CHARTS) {
    const at = dom.indexOf(`<figure class="chart" id="${id}">`);
    const figure = at < 0 ? '' : dom.slice(at, dom.indexOf('</figure>', at));
    if (!/<svg[\s\S]*<\/svg>/.test(figure)) problems.push(`the DOM has no chart ${id} with its SVG`);
  }
  console.log(`DOM: ${dom.length} characters, ${SECTIONS.length} sections, ${CHARTS.length} charts checked`);
}

/** Loads the page under the DevTools protocol and answers what it logged and requested. */
function loadWatched() {
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, [...flags(), '--remote-debugging-pipe', 'about:blank'],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    const [toBrowser, fromBrowser] = [child.stdio[3], child.stdio[4]];
    const timer = setTimeout(() => { child.kill(); reject(new Error('the page did not load in 60 s')); }, 60000);
    const waiting = new Map();
    const events = [];
    let buffer = Buffer.alloc(0);
    let id = 0;
    let loaded;
    const load = new Promise((r) => { loaded = r; });
    fromBrowser.on('data', (data) => {
      buffer = Buffer.concat([buffer, data]);
      for (let end; (end = buffer.indexOf(0)) >= 0;) {
        const message = JSON.parse(buffer.subarray(0, end).toString());
        buffer = buffer.subarray(end + 1);
        if (message.id && waiting.has(message.id)) {
          waiting.get(message.id)(message);
          waiting.delete(message.id);
        } else if (message.method === 'Page.loadEventFired') {
          loaded();
        } else if (message.method) {
          events.push(message);
        }
      }
    });
    const send = (method, params = {}, sessionId) => {
      const message = { id: ++id, method, params, ...(sessionId ? { sessionId } : {}) };
      toBrowser.write(JSON.stringify(message) + '\0');
      return new Promise((r) => waiting.set(message.id, r));
    };
    (async () => {
      const target = await send('Target.createTarget', { url: 'about:blank' });
      const attached = await send('Target.attachToTarget', { targetId: target.result.targetId, flatten: true });
      const session = attached.result.sessionId;
      for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await send(`${domain}.enable`, {}, session);
      await send('Page.navigate', { url }, session);
      await load;
      // What a page does just after its load event (a late request, a deferred error) shows too.
      await new Promise((r) => setTimeout(r, 500));
      await send('Browser.close');
      clearTimeout(timer);
      resolve(events);
    })().catch(reject);
  });
}

function checkLoad(events) {
  let requests = 0;
  for (const { method, params } of events) {
    if (method === 'Runtime.consoleAPICalled') {
      problems.push(`console.${params.type}: ${params.args.map((a) => a.value).join(' ')}`);
    } else if (method === 'Runtime.exceptionThrown') {
      problems.push(`exception: ${params.exceptionDetails.text}`);
    } else if (method === 'Log.entryAdded' && ['error', 'warning'].includes(params.entry.level)) {
      problems.push(`${params.entry.level}: ${params.entry.text} ${params.entry.url || ''}`);
    } else if (method === 'Network.requestWillBeSent') {
      requests += 1;
      if (params.request.url !== url) problems.push(`the page requested ${params.request.url}`);
    } else if (method === 'Network.loadingFailed') {
      problems.push(`a load failed: ${params.errorText}`);
    }
  }
  if (requests === 0) problems.push('the page itself was never requested');
  console.log(`load: ${events.length} events, ${requests} request(s)`);
}

/** The pixels of a PNG of 8-bit RGB or RGBA, non-interlaced: { width, height, channels, rows }. */
function decodePng(bytes) {
  if (bytes.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8;
  let header;
  const data = [];
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('ascii', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8], colour: body[9], interlace: body[12] };
    } else if (type === 'IDAT') {
      data.push(body);
    }
    at += 12 + length;
  }
  const channels = { 2: 3, 6: 4 }[header.colour];
  if (header.depth !== 8 || !channels || header.interlace !== 0) {
    throw new Error(`a PNG this check does not read: ${JSON.stringify(header)}`);
  }
  const raw = zlib.inflateSync(Buffer.concat(data));
  const stride = header.width * channels;
  const rows = [];
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < header.height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? line[i - channels] : 0;
      const up = previous[i];
      const upLeft = i >= channels ? previous[i - channels] : 0;
      let add = 0;
      if (filter === 1) add = left;
      else if (filter === 2) add = up;
      else if (filter === 3) add = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        add = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      line[i] = (line[i] + add) & 0xff;
    }
    rows.push(line);
    previous = line;
  }
  return { width: header.width, height: header.height, channels, rows };
}

function checkScreenshot() {
  const file = path.join(work, 'report.png');
  run([`--screenshot=${file}`, '--window-size=1200,2400', '--hide-scrollbars', url]);
  const png = decodePng(fs.readFileSync(file));
  const colours = new Set();
  let inked = 0;
  for (const row of png.rows) {
    for (let i = 0; i < row.length; i += png.channels) {
      const [r, g, b] = [row[i], row[i + 1], row[i + 2]];
      colours.add((r << 16) | (g << 8) | b);
      if (r + g + b < 600) inked += 1;
    }
  }
  const share = inked / (png.width * png.height);
  if (colours.size < 16) problems.push(`the screenshot has ${colours.size} colours: blank`);
  if (share < 0.01 || share > 0.9) problems.push(`the screenshot is ${(share * 100).toFixed(1)} % ink`);
  console.log(`screenshot: ${png.width}x${png.height}, ${colours.size} colours, ${(share * 100).toFixed(1)} % ink`);
}

(async () => {
  let failed = 0;
  const checks = [checkDom, async () => checkLoad(await loadWatched()), checkScreenshot];
  for (const check of checks) {
    const before = problems.length;
    try {
      await check();
    } catch (e) {
      problems.push(e.message);
    }
    if (problems.length > before) failed += 1;
  }
  for (const p of problems) console.error(`report in Chromium: ${p}`);
  console.log(`chromium: ${checks.length - failed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
})();
