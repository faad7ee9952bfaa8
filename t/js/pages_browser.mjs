// A form of several pages in a real browser (headless Chromium, driven
// over the DevTools protocol with Node's own WebSocket: no npm package).
// The page has no script (its Content-Security-Policy allows none); the
// walk uses only what a person does: typing, Enter, clicking the buttons.
// It checks what only a browser decides: Enter in a field presses Next
// (the first button), Back leaves a page whose required answer is
// missing (formnovalidate) and keeps what was typed, the browser's own
// checks hold Next back, and the page fits 320 px (light, dark, right to
// left) with a named progress bar and every control labelled.
//
// Usage: node --experimental-websocket pages_browser.mjs <chromium> <form url> <rtl form url>
// Prints one JSON line per check: {"ok": true|false, "name": "...", "diag": "..."}.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [chromium, formUrl, rtlUrl] = process.argv.slice(2);
const say = (ok, name, diag) => console.log(JSON.stringify({ ok: !!ok, name, diag: diag ?? '' }));

const dir = mkdtempSync(join(tmpdir(), 'fs-pages-'));
const browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu',
  '--disable-extensions', '--disable-background-networking', '--no-first-run',
  '--disable-sync', '--remote-debugging-port=0', `--user-data-dir=${dir}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe'] });
const wsUrl = await new Promise((resolve, reject) => {
  let err = '';
  const t = setTimeout(() => reject(new Error('no DevTools URL: ' + err)), 20000);
  browser.stderr.on('data', (d) => {
    err += d;
    const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) { clearTimeout(t); resolve(m[1]); }
  });
});

const ws = new WebSocket(wsUrl);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
let nextId = 0;
const pending = new Map();
const listeners = [];
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
  } else if (msg.method) {
    for (const l of listeners.slice()) l(msg);
  }
};
const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const id = ++nextId;
  pending.set(id, { resolve, reject });
  ws.send(JSON.stringify({ id, method, params, sessionId }));
});

const { targetInfos } = await send('Target.getTargets');
const page = targetInfos.find((t) => t.type === 'page');
const { sessionId: sid } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
const cdp = (method, params) => send(method, params, sid);
await cdp('Page.enable');
await cdp('Runtime.enable');

// the next load of the page (a navigation or a form post), within 10 s
const loaded = () => new Promise((resolve, reject) => {
  const t = setTimeout(() => reject(new Error('no page load')), 10000);
  const l = (msg) => {
    if (msg.method === 'Page.loadEventFired' && msg.sessionId === sid) {
      clearTimeout(t);
      listeners.splice(listeners.indexOf(l), 1);
      resolve();
    }
  };
  listeners.push(l);
});
const js = async (expression) => {
  const r = await cdp('Runtime.evaluate', { expression, returnByValue: true });
  if (r.exceptionDetails) throw new Error(r.exceptionDetails.text + ': ' + expression);
  return r.result.value;
};
const go = async (url) => { const l = loaded(); await cdp('Page.navigate', { url }); await l; };
const type = async (id, text) => {
  await js(`(e => { e.value = ''; e.focus(); })(document.getElementById(${JSON.stringify(id)}))`);
  await cdp('Input.insertText', { text });
};
const enter = async () => {
  const l = loaded();
  for (const type of ['keyDown', 'keyUp'])
    await cdp('Input.dispatchKeyEvent', { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: type === 'keyDown' ? '\r' : undefined });
  await l;
};
// a person's click on a button: at its place on the screen
const click = async (selector) => {
  const box = await js(`(b => { b.scrollIntoView({block: 'center'}); const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })(document.querySelector(${JSON.stringify(selector)}))`);
  for (const type of ['mousePressed', 'mouseReleased'])
    await cdp('Input.dispatchMouseEvent', { type, x: box[0], y: box[1], button: 'left', clickCount: 1 });
};
const clickAndLoad = async (selector) => { const l = loaded(); await click(selector); await l; };
const progress = () => js(`(document.getElementById('progress') || {}).textContent || ''`);
const width = async (w, dark) => {
  await cdp('Emulation.setDeviceMetricsOverride', { width: w, height: 900, deviceScaleFactor: 1, mobile: false });
  await cdp('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] });
};
// what a person needs of the page at 320 px: nothing wider than the
// screen, every control named, the progress bar named by its text
const layoutChecks = async (what) => {
  const r = await js(`(() => {
    const over = document.scrollingElement.scrollWidth > innerWidth;
    const unnamed = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((e) => e.name !== '_hp' && !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
      .map((e) => e.name);
    const pb = document.querySelector('progress');
    const pbName = pb && pb.getAttribute('aria-labelledby') &&
      (document.getElementById(pb.getAttribute('aria-labelledby')) || {}).textContent;
    const buttons = [...document.querySelectorAll('button')].map((b) => {
      const r = b.getBoundingClientRect();
      return { text: b.textContent.trim(), inside: r.left >= 0 && r.right <= innerWidth };
    });
    return { over, unnamed, pbName, buttons, dir: document.documentElement.dir };
  })()`);
  say(!r.over, `${what}: no wider than the screen`, JSON.stringify(r));
  say(r.unnamed.length === 0, `${what}: every control has a label`, r.unnamed.join(','));
  say(/\d/.test(r.pbName || ''), `${what}: the progress bar is named by "${r.pbName}"`);
  say(r.buttons.every((b) => b.text && b.inside), `${what}: every button has a text and is on screen`, JSON.stringify(r.buttons));
  return r;
};

try {
  await width(320, false);
  await go(formUrl);
  say((await progress()) === 'Page 1 of 3', 'page 1 of 3 opens', await progress());
  say((await js('document.scripts.length')) === 0, 'the page has no script');
  await layoutChecks('page 1, 320 px, light');
  await type('f-name', 'Ada');
  await enter();
  say((await progress()) === 'Page 2 of 3', 'Enter in a field goes to the next page (Next comes first)', await progress());
  say(await js(`!document.querySelector('form').checkValidity()`), 'the required e-mail empty: the browser holds Next back');
  await width(320, true);
  await layoutChecks('page 2, 320 px, dark');
  await width(320, false);
  await type('f-email', 'ada@'); // not an address yet: the browser would hold Next back
  say(await js(`document.getElementById('f-email').validity.typeMismatch`), 'the browser finds "ada@" no address');
  await clickAndLoad('button[value=back]');
  say((await progress()) === 'Page 1 of 3', 'Back leaves the page, its e-mail unfinished (no browser check)', await progress());
  say((await js(`document.getElementById('f-name').value`)) === 'Ada', 'page 1 keeps "Ada"');
  await clickAndLoad('button[value=next]');
  say((await js(`document.getElementById('f-email').value`)) === 'ada@', 'page 2 keeps what was typed before Back');
  await type('f-email', 'ada@example.org');
  await clickAndLoad('button[value=next]');
  say((await progress()) === 'Page 3 of 3', 'Next: page 3', await progress());
  say(await js(`!!document.querySelector('button[value=submit]') && !document.querySelector('button[value=next]')`), 'the last page sends');
  await click('label[for=f-stars-3]');
  await clickAndLoad('button[value=submit]');
  say(/\/thanks$/.test(await js('location.pathname')), 'Submit lands on the thanks page', await js('location.href'));
  await go(rtlUrl);
  await layoutChecks('page 1, 320 px, right to left');
  await type('f-name', 'Dana');
  await enter();
  await width(320, true);
  const r = await layoutChecks('page 2, 320 px, right to left, dark');
  say(r.dir === 'rtl', 'the page is right to left');
} catch (e) {
  say(false, 'the walk went to its end', String(e && e.stack || e));
} finally {
  ws.close();
  browser.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
