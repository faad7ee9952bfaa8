// The questions address, daterange, time, signature and date bounds in a
// real browser, for t/34_types_b.t:
//   node axe_types_b.mjs <plan.json>
// Headless Chromium (Debian's, driven by playwright-core) opens the form
// with all of them at 320 px in English and Arabic (right to left), light
// and dark, and runs axe-core (WCAG 2.0 and 2.1, A and AA) on it; fails on
// a page wider than its window and on any console error, exception or
// Content-Security-Policy violation. Then it fills the form as a person
// does (the country chosen from the select) and submits it, first with
// JavaScript off (the typed name is the signature), then with it on,
// drawing on the signature's pad (its PNG goes with the form as a file):
// the thanks page must follow each time. Prints one JSON line per check
// ({ok, name, diag}) and a last line {done: true}.
// FORMSVC_TYPES_SHOTS=<dir>: also a screenshot of each new question at
// 320 px in English, light (docs/public-form-*.png were made this way).
//
// The plan: {chromium, url, answers: [{selector, value, kind: fill|select}]}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const wait = 60000 * (Number(process.env.FORMSVC_WAIT_SCALE) || 1);

function say(ok, name, diag) {
  process.stdout.write(JSON.stringify({ ok: !!ok, name, diag: diag || "" }) + "\n");
}

function describe(v) {
  return v.map((x) => `${x.id} (${x.impact}): ${x.help}\n` +
    x.nodes.map((n) => `    at ${n.target.join(" ")}: ${n.failureSummary.replace(/\n/g, " ")}`).join("\n")).join("\n");
}

async function context(browser, options) {
  const c = await browser.newContext(options);
  c.setDefaultTimeout(wait);
  await c.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`));
  });
  return c;
}

function watch(page) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
  return errors;
}

async function language(browser, lang, dir) {
  const c = await context(browser, { locale: lang, viewport: { width: 320, height: 800 } });
  const page = await c.newPage();
  const errors = watch(page);
  await page.goto(plan.url);
  const html = await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
  say(html[0].startsWith(lang) && html[1] === dir, `${lang}: the page is in ${lang}, ${dir}`, html.join(" "));
  await page.evaluate(AXE);
  for (const colorScheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme });
    const where = `${lang} at 320 px, ${colorScheme}`;
    const res = await page.evaluate(
      (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
      TAGS);
    say(res.violations.length === 0 && res.passes.length > 0, `${where}: axe finds no violation`, describe(res.violations));
    const wide = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    say(wide[0] <= wide[1], `${where}: no horizontal scroll`, `scrollWidth ${wide[0]} > ${wide[1]}`);
    if (process.env.FORMSVC_TYPES_SHOTS && lang === "en" && colorScheme === "light")
      for (const q of plan.shots || [])
        await page.locator(`#q-${q}`).screenshot({ path: `${process.env.FORMSVC_TYPES_SHOTS}/public-form-${q}-320.png` });
  }
  const csp = await page.evaluate(() => window.__csp);
  say(csp.length === 0 && errors.length === 0, `${lang}: no console error, exception or CSP violation`,
    [...csp, ...errors].join("\n"));
  await c.close();
}

// Fills the form as a person does and sends it; with script, also draws
// on the signature's pad (a stroke with the mouse).
async function fillAndSend(browser, script) {
  const c = await context(browser, { javaScriptEnabled: script, locale: "en", viewport: { width: 320, height: 800 } });
  const page = await c.newPage();
  const errors = watch(page);
  await page.goto(plan.url);
  for (const a of plan.answers) {
    if (a.kind === "select") await page.selectOption(a.selector, a.value);
    else await page.fill(a.selector, a.value);
  }
  const pad = page.locator(".sigpad canvas");
  say(script === await pad.isVisible(), script ? "with script, the signature pad is shown" : "without script, no pad is shown");
  if (script) {
    await pad.scrollIntoViewIfNeeded();
    const b = await pad.boundingBox();
    await page.mouse.move(b.x + 10, b.y + b.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(b.x + 10 + i * (b.width - 20) / 10, b.y + b.height / 2 + (i % 2 ? 10 : -10));
    await page.mouse.up();
    const files = async () => page.evaluate(() => document.querySelector(".sigpad input[type=file]").files.length);
    const until = Date.now() + wait;
    while ((await files()) === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    say((await files()) === 1, "with script, the drawing is put into the pad's file input as a PNG");
  }
  await Promise.all([page.waitForNavigation(), page.click("main form button[type=submit]")]);
  const how = script ? "with script" : "with JavaScript off";
  say(new URL(page.url()).pathname.endsWith("/thanks"), `${how}, the filled form lands on the thanks page`, page.url());
  if (script) {
    const csp = await page.evaluate(() => window.__csp);
    say(csp.length === 0 && errors.length === 0, "with script: no console error, exception or CSP violation",
      [...csp, ...errors].join("\n"));
  }
  await c.close();
}

const t0 = Date.now();
const browser = await chromium.launch({ executablePath: plan.chromium, args: ["--no-sandbox"] });
try {
  await Promise.all([
    language(browser, "en", "ltr").catch((e) => say(false, "en: the run ended", e.stack)),
    language(browser, "ar", "rtl").catch((e) => say(false, "ar: the run ended", e.stack)),
  ]);
  // one after the other: the test reads the rows in this order
  await fillAndSend(browser, false).catch((e) => say(false, "no script: the run ended", e.stack));
  await fillAndSend(browser, true).catch((e) => say(false, "script: the run ended", e.stack));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify({ done: true, ms: Date.now() - t0 }) + "\n");
