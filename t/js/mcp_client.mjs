// One real MCP client session with the official TypeScript SDK, for
// t/60_mcp.t: node mcp_client.mjs <mcp url> <bearer secret>
// Prints one JSON object with what the SDK saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, secret] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${secret}` } },
});
const client = new Client({ name: "formsvc-test", version: "1.0.0" });
try {
  await client.connect(transport);
  const out = {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    tools: (await client.listTools()).tools.map((t) => t.name),
  };
  const created = await client.callTool({
    name: "create_form",
    arguments: { title: "From the SDK", fields: [{ key: "q", type: "text", label: "Q" }] },
  });
  out.created = created.structuredContent;
  out.createdIsError = created.isError;
  const missing = await client.callTool({ name: "get_form", arguments: { formId: "frm_nope" } });
  out.missing = missing.structuredContent;
  out.missingIsError = missing.isError;
  await client.ping();
  out.pinged = true;
  await client.close();
  console.log(JSON.stringify(out));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) + (e && e.cause ? " (cause: " + String(e.cause && e.cause.code ? e.cause.code + " " : "") + String(e.cause) + ")" : "") }));
  process.exit(1);
}
