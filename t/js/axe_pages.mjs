// The pages a person sees, in a real browser, for t/34_page_axe.t:
//   node axe_pages.mjs <plan.json>
// Headless Chromium (Debian's, driven by playwright-core) opens every page
// of the plan in each of its languages, and on each page runs axe-core
// (WCAG 2.0 and 2.1, A and AA) at 320 and 1280 px, in light and dark
// colour scheme. It also fails on any console error, uncaught exception or
// Content-Security-Policy violation, and on a page wider than its window,
// and it submits the form with JavaScript off. Prints one JSON line per
// check ({ok, name, diag}) and a last line {done: true}.
// FORMSVC_AXE_SHOTS=<dir>: also a full-page screenshot of each page in
// each size and scheme, into that directory, to look at.
//
// The plan (written by the test):
//   chromium   the browser's executable
//   mailDir    where the test servers write mail (one .eml per message)
//   languages  [{lang, dir, email}]: one browser context each (its
//              Accept-Language), and the account that signs in there
//   form       {url, answers, bad}: the form with every kind of field; the
//              answers that are accepted, and the ones that are not
//   pages      {url, first, bad, second, last}: a form of three pages, the
//              answers of each page (bad: page 2's refused ones)
//   closed, gone   a closed form's page, a withdrawn link's page
//   embed      {form, host}: an embeddable form, and a host page framing it
//              (another origin) that loads embed.js with its integrity
//   english    [{label, url, status}]: pages in English only, checked in
//              English
//   asks       {<lang>: url}: an ask's page per language (each is declined),
//              and one for the run without script ("noscript")
//   authorize  {<lang>: {url, formTitle}}: the OAuth page per language, with a
//              form: constraint naming that language's account's form;
//              {bad: url}: one whose client is unknown; {noscript: ...}
//              for the run without script, whose account is noScriptEmail
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const WIDTHS = [320, 1280];
const SCHEMES = ["light", "dark"];

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));

// A context whose actions and navigations wait up to a minute (the
// machine may be loaded; FORMSVC_WAIT_SCALE lengthens it as everywhere).
async function newContext(browser, options) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(60000 * (Number(process.env.FORMSVC_WAIT_SCALE) || 1));
  return context;
}

function say(ok, name, diag) {
  process.stdout.write(JSON.stringify({ ok: !!ok, name, diag: diag || "" }) + "\n");
}

// ---- the mail sink: the sign-in code sent to an address --------------------
function mailsTo(to) {
  let files;
  try {
    files = readdirSync(plan.mailDir).filter((f) => f.endsWith(".eml")).sort();
  } catch {
    return [];
  }
  const out = [];
  for (const f of files) {
    let raw;
    try {
      raw = readFileSync(`${plan.mailDir}/${f}`, "latin1");
    } catch {
      continue;
    }
    const at = raw.indexOf("\r\n\r\n");
    const head = at < 0 ? raw : raw.slice(0, at);
    const body = at < 0 ? "" : raw.slice(at + 4);
    const m = head.match(/^To:\s*(.*)$/im);
    if (m && m[1].trim() === to) out.push(body.replace(/=\r?\n/g, ""));
  }
  return out;
}

async function codeFor(to, before) {
  const until = Date.now() + 30000 * (Number(process.env.FORMSVC_WAIT_SCALE) || 1);
  for (let pause = 20; Date.now() < until; pause = Math.min(pause * 1.5, 200)) {
    const m = mailsTo(to);
    if (m.length > before) {
      const c = m[m.length - 1].match(/^    ([A-Z2-9]{8})\r?$/m);
      if (c) return c[1];
    }
    await new Promise((r) => setTimeout(r, pause));
  }
  return null;
}

// ---- what a page does wrong besides axe ------------------------------------
// Each page records its console errors, uncaught exceptions and CSP
// violations (seen by a listener installed before any of the page's own
// content runs); the response status of its document is expected, so the
// browser's console line for a 4xx document is not an error of the page.
function watch(page) {
  const w = { errors: [] };
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const t = m.text();
    if (w.expect && t === `Failed to load resource: the server responded with a status of ${w.expect.status} (${w.expect.text})` &&
        (m.location().url || "") === w.expect.url) return;
    w.errors.push(`console: ${t} (${m.location().url || "?"})`);
  });
  page.on("pageerror", (e) => w.errors.push(`exception: ${e.message}`));
  page.on("response", (r) => {
    if (r.request().isNavigationRequest() && r.frame() === page.mainFrame())
      w.expect = { status: r.status(), text: r.statusText(), url: r.url() };
  });
  return w;
}

// Also axe-core itself, into every document of the context as it starts
// (sent to the browser once, rather than with each page checked).
async function installCspListener(context) {
  await context.addInitScript(AXE);
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile || ""}:${e.lineNumber})`));
  });
}

function describe(v) {
  return v.map((x) => `${x.id} (${x.impact}): ${x.help}\n    ${x.helpUrl}\n` +
    x.nodes.map((n) => `    at ${n.target.join(" ")}: ${n.failureSummary.replace(/\n/g, " ")}`).join("\n")).join("\n");
}

// The checks of the page as it is now: axe in every size and scheme, the
// language and direction, no horizontal scroll, nothing in the console.
// expect: {status, path?, text?, frame?}; with frame (a framed document),
// the checks are of that document (no status: the page's is its host's).
async function check(page, w, label, lang, expect) {
  const doc = expect.frame || page;
  if (expect.status !== undefined) {
    const status = w.expect ? w.expect.status : 0;
    say(status === expect.status, `${label}: status ${expect.status}`, `got ${status} at ${page.url()}`);
  }
  if (expect.path) say(new URL(page.url()).pathname.endsWith(expect.path), `${label}: at …${expect.path}`, page.url());
  const html = await doc.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
  say(html[0] === lang.lang && html[1] === lang.dir, `${label}: <html lang="${lang.lang}" dir="${lang.dir}">`,
    `got lang="${html[0]}" dir="${html[1]}"`);
  if (expect.text) {
    const body = await doc.evaluate(() => document.body.innerText);
    say(body.includes(expect.text), `${label}: shows “${expect.text}”`, body.slice(0, 400));
  }
  if (!(await doc.evaluate(() => !!window.axe))) await doc.evaluate(AXE);
  for (const width of WIDTHS) {
    for (const colorScheme of SCHEMES) {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme });
      const res = await doc.evaluate(
        (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
        TAGS);
      const where = `${label} at ${width} px, ${colorScheme}`;
      // what axe judged: this width and this scheme (the page's own dark
      // style sheet applies), and some rules ran
      const seen = [await page.evaluate(() => window.innerWidth),
        await doc.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)];
      const why = seen[0] !== width || seen[1] !== (colorScheme === "dark")
        ? `the page saw width ${seen[0]}, dark ${seen[1]}`
        : res.passes.length ? describe(res.violations) : "axe ran no rule";
      say(res.violations.length === 0 && res.passes.length > 0 && seen[0] === width && seen[1] === (colorScheme === "dark"),
        `${where}: axe finds nothing`, why);
      if (process.env.FORMSVC_AXE_SHOTS) {
        await page.screenshot({ fullPage: true,
          path: `${process.env.FORMSVC_AXE_SHOTS}/${label.replace(/[^A-Za-z0-9]+/g, "-")}-${width}-${colorScheme}.png` });
        // and each question alone (docs/public-forms.md shows some at 320 px)
        if (!expect.frame)
          for (const q of await page.$$("main form .q[id]"))
            await q.screenshot({
              path: `${process.env.FORMSVC_AXE_SHOTS}/${label.replace(/[^A-Za-z0-9]+/g, "-")}-${await q.getAttribute("id")}-${width}-${colorScheme}.png` });
      }
      const wide = await doc.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      say(wide[0] <= wide[1], `${where}: no horizontal scroll`, `scrollWidth ${wide[0]} > ${wide[1]}`);
    }
  }
  // forced colours (Windows high contrast) replace the backgrounds with
  // the system's: a button must keep an edge, or it reads as bare text
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light", forcedColors: "active" });
  const bare = await doc.evaluate(() => matchMedia("(forced-colors: active)").matches
    ? [...document.querySelectorAll("button")].filter((b) => b.getClientRects().length).filter((b) => {
      const cs = getComputedStyle(b);
      return ["Top", "Right", "Bottom", "Left"].some((e) => cs[`border${e}Style`] === "none" || parseFloat(cs[`border${e}Width`]) === 0);
    }).map((b) => b.textContent.trim())
    : ["the page did not see forced-colors: active"]);
  await page.emulateMedia({ forcedColors: "none" });
  say(bare.length === 0, `${label} in forced colours: every button has a border`, `bare: ${bare.join(", ")}`);
  // the listener must be there (in a frame too), or no violation is seen
  const listened = async (d) => (await d.evaluate(() => window.__csp)) || ["no securitypolicyviolation listener"];
  const csp = [...await listened(page), ...(expect.frame ? await listened(doc) : [])];
  say(csp.length === 0 && w.errors.length === 0, `${label}: no console error, exception or CSP violation`,
    [...csp.map((c) => `csp: ${c}`), ...w.errors].join("\n"));
  w.errors = [];
}

// Fills the form's answers: [{name (or id), kind: fill|check|select|file, value}]
async function fill(page, answers) {
  for (const a of answers) {
    const sel = a.id ? `main form:not(.decline) #${a.id}`
      : a.kind === "check" && a.value !== undefined
      ? `main form:not(.decline) [name="${a.name}"][value="${a.value}"]`
      : `main form:not(.decline) [name="${a.name}"]`;
    if (a.kind === "fill") await page.fill(sel, a.value);
    else if (a.kind === "check") await page.check(sel);
    else if (a.kind === "select") await page.selectOption(sel, a.value);
    else if (a.kind === "file")
      await page.setInputFiles(sel, { name: a.value.name, mimeType: a.value.type, buffer: Buffer.from(a.value.base64, "base64") });
  }
}

async function submit(page, button = "main form:not(.decline) button[type=submit]") {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(button)]);
}

// The walk through a form of three pages (plan.pages, with partial
// answers kept: a save button, the resume URL); seen(label, expect)
// checks each page reached (or, without script, only where it landed).
// The buttons are pressed by their value; Enter in a field presses the
// first, Next. Back leaves a page the browser's own checks would hold
// (formnovalidate), and both pages keep what was typed.
async function pagedWalk(page, p, seen, tag) {
  const press = (v) => submit(page, `main form:not(.decline) button[value=${v}]`);
  const value = (name) => page.inputValue(`main form [name=${name}]`);
  await page.goto(p.url);
  await seen("page 1 of a form of pages", { status: 200 });
  await fill(page, p.first);
  if (!tag.includes("JavaScript off")) { // the page's script saves after a pause in typing
    const saved = await page.waitForSelector("main form input[name=_resume]", { state: "attached", timeout: 15000 })
      .then(() => true, () => false);
    say(saved, `a pause after typing: the page saved the answers by itself (its resume token is in the form) ${tag}`);
  }
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.press("main form [name=name]", "Enter")]);
  say(await page.locator("main form [name=email]").count() === 1, `Enter in a field goes on to page 2 ${tag}`, page.url());
  // Tab goes through Next, Back, Save in the order they are seen (the
  // page's reading direction), not from the far end backwards
  const along = await page.evaluate(() => {
    const rtl = document.documentElement.dir === "rtl";
    const bs = [...document.querySelectorAll("main form .nav button")].map((b) => [b.value, b.getBoundingClientRect()]);
    const ok = bs.length === 3 && bs.every(([, r], i) => i === 0 ||
      (r.top >= bs[i - 1][1].bottom - 1 || (rtl ? r.right <= bs[i - 1][1].left : r.left >= bs[i - 1][1].right)));
    return [ok, bs.map(([v, r]) => `${v} at x ${Math.round(r.left)}, y ${Math.round(r.top)}`).join("; ")];
  });
  say(along[0], `page 2's buttons are in the Tab order along the line ${tag}`, along[1]);
  await page.fill("main form [name=email]", "ada@");
  say(!(await page.evaluate(() => document.querySelector("main form").checkValidity())),
    `the browser's own checks hold "ada@" ${tag}`);
  await press("back");
  say((await value("name")) === "Ada", `Back leaves it, and page 1 keeps what was typed ${tag}`, page.url());
  await press("next");
  say((await value("email")) === "ada@", `page 2 keeps what was typed before Back ${tag}`);
  await page.evaluate(() => { for (const f of document.forms) f.noValidate = true; });
  await fill(page, p.bad);
  await press("next");
  await seen("page 2 of a form of pages with its errors", { status: 422 });
  await fill(page, p.second);
  await press("next");
  await seen("the last page of a form of pages", { status: 200 });
  // the form keeps partial answers: the page names its resume URL, which
  // opens the page reached with the answers (in this browser, as in another)
  const resume = await page.getAttribute("main p.resume a", "href").catch(() => null);
  say(!!resume, `the last page names its resume URL ${tag}`);
  if (resume) {
    await page.goto(resume);
    await seen("the last page opened by its resume URL", { status: 200 });
  }
  await fill(page, p.last);
  await press("submit");
  await seen("the thanks page of a form of pages", { status: 200, path: "/thanks" });
}

// ---- one language: every page ------------------------------------------------
async function language(browser, lang) {
  const context = await newContext(browser, { locale: lang.lang, viewport: { width: 1280, height: 800 } });
  await installCspListener(context);
  const page = await context.newPage();
  const w = watch(page);
  const L = (s) => `${s} [${lang.lang}]`;

  // the form with every kind of field
  await page.goto(plan.form.url);
  await check(page, w, L("form page"), lang, { status: 200 });

  // answers the server refuses (the browser's own checks off, as in a
  // browser that has none): the page again with its errors
  await page.evaluate(() => { for (const f of document.forms) f.noValidate = true; });
  await fill(page, plan.form.bad);
  await submit(page);
  await check(page, w, L("form page after a refused submission"), lang, { status: 422 });
  const summary = await page.locator(".summary[role=alert] a").count();
  say(summary > 0, L("the refused submission lists its errors, each a link"), `${summary} links`);
  const focused = await page.waitForFunction(
    () => document.activeElement && document.activeElement.classList.contains("summary"),
    null, { timeout: 5000 }).then(() => true, () => false);
  say(focused, L("the error summary has the focus (autofocus, no script needed)"));
  // Enter on the summary's first link: its input has the focus, and the
  // question (its label or legend) and its error are in sight above it,
  // not scrolled off the top
  await page.setViewportSize({ width: 1280, height: 800 });
  const link = page.locator(".summary[role=alert] a").first();
  const target = ((await link.getAttribute("href").catch(() => null)) || "#").slice(1);
  await link.focus().catch(() => {});
  await page.keyboard.press("Enter");
  const sight = await page.waitForFunction((id) => {
    const e = document.activeElement, q = e && e.id === id && e.closest(".q");
    const head = q && q.querySelector("label, legend"), err = q && q.querySelector(".err");
    return head && err && head.getBoundingClientRect().top >= 0 && err.getBoundingClientRect().top >= 0;
  }, target, { timeout: 5000 }).then(() => true, () => false);
  say(sight, L("the summary's first link focuses its input with the question and its error in sight"),
    await page.evaluate(() => { const e = document.activeElement, q = e && e.closest(".q");
      return `focus on #${e && e.id}; question at y ${q ? Math.round(q.getBoundingClientRect().top) : "?"}`; }));

  // the thanks page, posted with script on
  await page.goto(plan.form.url);
  await fill(page, plan.form.answers);
  await submit(page);
  await check(page, w, L("thanks page"), lang, { status: 200, path: "/thanks" });

  // a form of three pages: each page as a person meets it, page 2 with
  // its errors, Back to page 1 (what was typed kept), the last page
  await pagedWalk(page, plan.pages, (label, expect) => check(page, w, L(label), lang, expect), `[${lang.lang}]`);

  await page.goto(plan.closed);
  await check(page, w, L("closed form page"), lang, { status: plan.closedStatus });
  await page.goto(plan.gone);
  await check(page, w, L("withdrawn link page"), lang, { status: 410 });

  // an ask: its page with the Decline button, then declined
  await page.goto(plan.asks[lang.lang]);
  await check(page, w, L("ask page"), lang, { status: 200 });
  say(await page.locator("form.decline button[type=submit]").count() === 1, L("the ask page has a Decline button"));
  await submit(page, "form.decline button[type=submit]");
  await check(page, w, L("declined page"), lang, { status: 200, path: "/declined" });

  // the OAuth authorize page, step by step
  await page.goto(plan.authorize[lang.lang].url);
  await check(page, w, L("OAuth sign-in page"), lang, { status: 200 });
  await page.evaluate(() => { for (const f of document.forms) f.noValidate = true; });
  await page.fill("#email", "not an address");
  await submit(page, "form:has(#email) button[type=submit]");
  await check(page, w, L("OAuth sign-in page with a wrong address"), lang, { status: 422 });
  say(await page.locator("#email[aria-invalid=true]").count() === 1, L("the wrong address is marked on its input"));
  const before = mailsTo(lang.email).length;
  await page.fill("#email", lang.email);
  await submit(page, "form:has(#email) button[type=submit]");
  await check(page, w, L("OAuth code page"), lang, { status: 200 });
  await page.fill("#code", "ABCD2345");
  await submit(page, "form:has(#code) button[type=submit]");
  await check(page, w, L("OAuth code page with a wrong code"), lang, { status: 422 });
  const code = await codeFor(lang.email, before);
  say(code, L("the sign-in code was mailed"));
  if (code) {
    await page.fill("#code", code);
    await submit(page, "form:has(#code) button[type=submit]");
    await check(page, w, L("OAuth consent page"), lang, { status: 200, text: `“${plan.authorize[lang.lang].formTitle}”` });
    say(await page.locator("button[value=approve]").count() === 1, L("the consent page has Approve"));
  }
  await page.goto(plan.authorize.bad);
  await check(page, w, L("OAuth error page"), lang, { status: 400 });

  await context.close();
}

// ---- the pages whose texts are in English only (a context of their own,
// in parallel with the languages' runs) ------------------------------------------
async function english(browser) {
  const lang = { lang: "en", dir: "ltr" };
  const context = await newContext(browser, { locale: "en", viewport: { width: 1280, height: 800 } });
  await installCspListener(context);
  const page = await context.newPage();
  const w = watch(page);
  for (const e of plan.english) {
    await page.goto(e.url);
    await check(page, w, `${e.label} [en]`, lang, { status: e.status });
  }

  // an embeddable form framed by a host page of an origin it allows, which
  // loads embed.js as docs/public-forms.md says (integrity, crossorigin):
  // the only pages with a script. The form's script posts its height,
  // embed.js sizes the frame.
  const e = plan.embed;
  await page.goto(e.host);
  const sized = await page.waitForFunction(
    () => parseInt(document.querySelector("iframe[data-formsvc]").style.height, 10) > 300, null,
    { timeout: 15000 * (Number(process.env.FORMSVC_WAIT_SCALE) || 1) }).then(() => true, () => false);
  say(sized, "embedded form [en]: embed.js sizes the frame to the height the form posts",
    await page.evaluate(() => `frame height: ${document.querySelector("iframe[data-formsvc]").style.height}`));
  const frame = page.frames().find((f) => f.url() === e.form);
  say(frame, "embedded form [en]: the frame shows the form",
    [page.frames().map((f) => f.url()).join(" "), ...w.errors].join("\n"));
  if (frame) await check(page, w, "embedded form [en]", lang, { frame });
  await context.close();
}

// ---- no script: every form of the pages still posts ---------------------------------
// The form lands on the thanks page, the ask's Decline on the declined
// page, and the OAuth page signs in by mailed code and approves: the
// browser is sent on to the client with a code (the request it then makes
// is seen; the client's host does not exist, so that navigation fails).
async function noScript(browser) {
  const context = await newContext(browser, { javaScriptEnabled: false, locale: "en" });
  const page = await context.newPage();
  let client = null;
  page.on("request", (r) => { if (r.url().startsWith("https://app.example/")) client = r.url(); });
  const w = watch(page);
  const landed = (path, status = 200) =>
    new URL(page.url()).pathname.endsWith(path) && w.expect && w.expect.status === status;
  const at = () => `at ${page.url()} (${w.expect && w.expect.status})`;
  await page.goto(plan.form.url);
  await fill(page, plan.form.answers);
  await submit(page);
  say(landed("/thanks"), "with JavaScript off, the filled form lands on the thanks page", at());

  const ends = [];
  await pagedWalk(page, plan.pages, async (label, expect) => ends.push(`${label}: ${landed(expect.path || "", expect.status) ? "ok" : at()}`),
    "(JavaScript off)");
  say(ends.every((e) => e.endsWith(": ok")), "with JavaScript off, the form of three pages walks to the thanks page", ends.join("\n"));

  await page.goto(plan.asks.noscript);
  await submit(page, "form.decline button[type=submit]");
  say(landed("/declined"), "with JavaScript off, an ask's Decline lands on the declined page", at());

  await page.goto(plan.authorize.noscript.url);
  const before = mailsTo(plan.noScriptEmail).length;
  await page.fill("#email", plan.noScriptEmail);
  await submit(page, "form:has(#email) button[type=submit]");
  const code = await codeFor(plan.noScriptEmail, before);
  say(code && (await page.locator("#code").count()) === 1, "with JavaScript off, the OAuth page asks for the mailed code", at());
  if (code) {
    await page.fill("#code", code);
    await submit(page, "form:has(#code) button[type=submit]");
    say(await page.locator("button[value=approve]").count() === 1, "with JavaScript off, the consent page follows", at());
    await submit(page, "button[value=approve]").catch(() => {}); // the client is nowhere
    const back = client ? new URL(client) : null;
    say(back && back.pathname === "/cb" && back.searchParams.get("code") && back.searchParams.get("state") === "st",
      "with JavaScript off, Approve sends the browser on to the client with a code", client || "no request to the client");
  }
  say(w.errors.length === 0, "with JavaScript off: no console error (CSP included)", w.errors.join("\n"));
  await context.close();
}

// ---- the checker itself: a page made with faults, found -------------------------
// Served by the browser itself (a route), with a policy that its image
// breaks: axe must find the three faults, and the listener and the console
// the violation.
async function selfTest(browser) {
  const context = await newContext(browser);
  await installCspListener(context);
  const url = "http://selftest.invalid/";
  await context.route(url, (route) => route.fulfill({
    status: 200,
    headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'" },
    body: '<!doctype html><html><head><title>t</title></head><body><main>' +
      '<p style="color:#aaa;background:#fff">faint</p><input type="text"><img src="/x.png" alt=""></main></body></html>',
  }));
  const page = await context.newPage();
  const w = watch(page);
  await page.goto(url);
  const res = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }), TAGS);
  const ids = res.violations.map((v) => v.id).sort().join(" ");
  say(ids === "color-contrast html-has-lang label", "axe finds a page's faults (no lang, faint text, an unlabelled input)", ids);
  const csp = await page.evaluate(() => window.__csp);
  say(csp.length === 1 && /^img-src/.test(csp[0]), "a CSP violation is seen by the listener", csp.join("\n"));
  say(w.errors.some((e) => /Content Security Policy/.test(e)), "and in the console", w.errors.join("\n"));
  await context.close();
}

const t0 = Date.now();
const browser = await chromium.launch({ executablePath: plan.chromium, args: ["--no-sandbox"] });
try {
  await selfTest(browser);
  const runs = plan.languages.map((l) => language(browser, l).catch((e) => say(false, `${l.lang}: the run ended`, e.stack)));
  runs.push(english(browser).catch((e) => say(false, "English only: the run ended", e.stack)));
  runs.push(noScript(browser).catch((e) => say(false, "no script: the run ended", e.stack)));
  await Promise.all(runs);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify({ done: true, ms: Date.now() - t0 }) + "\n");
