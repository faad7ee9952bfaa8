// An agent asks a person through MCP with the official TypeScript SDK, for
// t/77_asks.t: node mcp_ask.mjs <mcp url> <bearer secret>
// ask_human makes the ask, get_ask long-polls while a "person" (this
// script, as a browser would: GET the page, POST its form, follow the
// redirect) answers; then wait_for_submissions with askId. Prints one
// JSON object with what the SDK saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, secret] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${secret}` } },
});
const client = new Client({ name: "formsvc-ask-test", version: "1.0.0" });
const unent = (s) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

// the person: open the page, fill in the answer form, post it, follow the 303
async function answer(link, fields) {
  const page = await (await fetch(link, { headers: { Accept: "text/html" } })).text();
  const m = page.match(/<form method="post" action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/);
  const body = new URLSearchParams();
  for (const h of m[2].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    body.append(h[1], unent(h[2]));
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  const res = await fetch(unent(m[1]), {
    method: "POST",
    body,
    headers: { Accept: "text/html", "Content-Type": "application/x-www-form-urlencoded" },
  });
  return { status: res.status, landed: new URL(res.url).pathname, redirected: res.redirected };
}

try {
  await client.connect(transport);
  const out = { tools: (await client.listTools()).tools.map((t) => t.name) };
  const asked = await client.callTool({
    name: "ask_human",
    arguments: {
      message: "May I restart the billing service now?",
      schema: {
        type: "object",
        properties: {
          decision: { title: "Decision", enum: ["approve", "reject"] },
          comment: { type: "string", title: "Comment", maxLength: 2000 },
        },
        required: ["decision"],
      },
      wait: 1,
    },
  });
  out.asked = asked.structuredContent;
  out.askedIsError = asked.isError;
  const poll = client.callTool({ name: "get_ask", arguments: { askId: asked.structuredContent.id, wait: 25 } },
                               undefined, { timeout: 60000 });
  await new Promise((r) => setTimeout(r, 300));
  out.person = await answer(asked.structuredContent.url, { decision: "approve", comment: "Yes, go." });
  const got = await poll;
  out.got = got.structuredContent;
  const subs = await client.callTool({
    name: "wait_for_submissions",
    arguments: { formId: asked.structuredContent.formId, askId: asked.structuredContent.id },
  });
  out.subs = subs.structuredContent;
  const bad = await client.callTool({
    name: "ask_human",
    arguments: { message: "x", schema: { type: "object", properties: { a: { type: "object" } } } },
  });
  out.bad = bad.structuredContent;
  out.badIsError = bad.isError;
  await client.close();
  console.log(JSON.stringify(out));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) + (e && e.cause ? " (cause: " + String(e.cause && e.cause.code ? e.cause.code + " " : "") + String(e.cause) + ")" : "") }));
  process.exit(1);
}
