// ask_human asked in the client (elicitation/create) with the MCP
// TypeScript SDK's own client and an elicitation handler, for
// t/37_mcp_elicit.t:  node mcp_elicit.mjs <mcp url> <bearer secret>
// One client declares elicitation and answers each request as planned
// (accept, decline, cancel, wrong-typed content, no answer at all); a
// second client declares nothing. Prints one JSON object with what the
// SDK saw; the .t file judges it and checks the server's side.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, secret] = process.argv.slice(2);
const out = { errors: [], seen: [] };
const approval = {
  title: "Restart billing?",
  type: "object",
  properties: {
    decision: { title: "Decision", enum: ["approve", "reject"] },
    comment: { type: "string", title: "Comment", maxLength: 2000 },
    count: { type: "integer", title: "How many", minimum: 1, maximum: 9 },
  },
  required: ["decision"],
};

function connectClient(name, capabilities) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  const client = new Client({ name, version: "1.0.0" }, { capabilities });
  client.onerror = (e) => out.errors.push(`${name}: ${String(e)}`);
  return { client, transport };
}

// what the person does with the next elicitation: a function of the request
let plan = null;

try {
  const a = connectClient("formsvc-elicit", { elicitation: {} });
  a.client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    out.seen.push({ id: req.id ?? extra.requestId, params: req.params });
    return plan(req, extra);
  });
  await a.client.connect(a.transport);
  out.sessionA = a.transport.sessionId;
  const ask = (args) =>
    a.client.callTool({ name: "ask_human", arguments: args }, undefined, { timeout: 60000 });
  const base = { message: "May I restart the billing service now?", schema: approval, wait: 20 };

  plan = () => ({ action: "accept", content: { decision: "approve", comment: "Yes, go.", count: 2 } });
  out.accepted = (await ask(base)).structuredContent;

  plan = () => ({ action: "decline" });
  out.declined = (await ask(base)).structuredContent;

  plan = () => ({ action: "cancel" });
  out.cancelled = (await ask(base)).structuredContent;

  // wrong-typed content: the SDK does not check it, the server must
  plan = () => ({ action: "accept", content: { decision: 42 } });
  out.invalid = (await ask(base)).structuredContent;

  // nobody answers: the tool's wait ends, the request is cancelled
  out.aborted = false;
  plan = (req, extra) =>
    new Promise((resolve) => {
      extra.signal.addEventListener("abort", () => {
        out.aborted = true;
        resolve({ action: "cancel" });
      });
    });
  const t0 = Date.now();
  out.unanswered = (await ask({ ...base, wait: 2 })).structuredContent;
  out.unansweredMs = Date.now() - t0;

  // a schema elicitation cannot ask (a multiple choice): the link alone
  const before = out.seen.length;
  plan = () => ({ action: "accept", content: {} });
  out.nofit = (
    await ask({
      message: "Which days?",
      schema: {
        type: "object",
        properties: { days: { type: "array", items: { enum: ["mon", "tue"] } } },
      },
      wait: 1,
    })
  ).structuredContent;
  out.nofitAsked = out.seen.length - before;

  // no wait: the link at once, nothing asked
  out.nowait = (await ask({ ...base, wait: 0 })).structuredContent;
  out.nowaitAsked = out.seen.length - before;

  // a client that declared no elicitation: the link, and the usual wait
  const b = connectClient("formsvc-plain", {});
  await b.client.connect(b.transport);
  out.sessionB = b.transport.sessionId;
  out.plain = (
    await b.client.callTool({ name: "ask_human", arguments: { ...base, wait: 1 } }, undefined, {
      timeout: 60000,
    })
  ).structuredContent;
  out.totalAsked = out.seen.length;
  await b.client.close();
  await a.client.close();
  console.log(JSON.stringify(out));
} catch (e) {
  out.error = String(e && e.stack ? e.stack : e) + (e && e.cause ? " (cause: " + String(e.cause && e.cause.code ? e.cause.code + " " : "") + String(e.cause) + ")" : "");
  console.log(JSON.stringify(out));
  process.exit(1);
}
