// The MCP TypeScript SDK's own OAuth client against /mcp (t/49_authorize_clients.t):
// an OAuthClientProvider kept in memory; the SDK discovers the authorization
// server from the 401 (RFC 9728), registers itself (RFC 7591), and sends
// the person to the authorize page; this script plays the person (pastes the
// account's key, approves) and hands the code back with finishAuth. Then a
// tool call, a refresh through the SDK's auth(), and another call.
// usage: node mcp_oauth.mjs MCP_URL OWNER_KEY
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, auth } from '@modelcontextprotocol/sdk/client/auth.js';

const [serverUrl, ownerKey] = process.argv.slice(2);
const redirect = 'http://127.0.0.1:9/callback';
const out = {};
const store = {};
let code;

const unescape = (s) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>').replace(/&amp;/g, '&');
function hidden(html) {
    const form = html.match(/<form [\s\S]*?<\/form>/)[0];
    const p = new URLSearchParams();
    for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
        if (m[1] !== 'step') p.append(m[1], unescape(m[2]));
    return p;
}
const action = (html) => unescape(html.match(/<form method="post" action="([^"]+)"/)[0].split('"')[3]);

async function playPerson(url) {
    out.authorizeUrl = url.toString();
    let r = await fetch(url, { redirect: 'manual', headers: { 'Accept-Language': 'en' } });
    // the page's session cookie (a proof moves it to a new one)
    let cookie = r.headers.get('set-cookie').split(';')[0];
    let html = await r.text();
    const post = async (fields) => {
        const body = hidden(html);
        for (const [k, v] of Object.entries(fields)) body.set(k, v);
        return fetch(action(html), { method: 'POST', body, redirect: 'manual',
                                     headers: { cookie, 'Accept-Language': 'en' } });
    };
    r = await post({ step: 'key', key: ownerKey });
    if (r.headers.get('set-cookie')) cookie = r.headers.get('set-cookie').split(';')[0];
    html = await r.text();
    r = await post({ step: 'consent', decision: 'approve' });
    const loc = new URL(r.headers.get('location'));
    out.state = loc.searchParams.get('state');
    return loc.searchParams.get('code');
}

const provider = {
    get redirectUrl() { return redirect; },
    get clientMetadata() {
        return { client_name: 'MCP SDK test client', redirect_uris: [redirect],
                 grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
                 token_endpoint_auth_method: 'none' };
    },
    state() { return 'sdk-state-1'; },
    clientInformation() { return store.client; },
    saveClientInformation(c) { store.client = c; },
    tokens() { return store.tokens; },
    saveTokens(t) { store.tokens = t; },
    saveCodeVerifier(v) { store.verifier = v; },
    codeVerifier() { return store.verifier; },
    async redirectToAuthorization(url) { code = await playPerson(url); },
};

try {
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    let transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    try {
        await client.connect(transport);
        out.connectedWithoutAuth = true;
    } catch (e) {
        if (!(e instanceof UnauthorizedError)) throw e;
    }
    out.registered = store.client?.client_id;
    await transport.finishAuth(code);
    out.scope = store.tokens?.scope;
    transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
    await client.connect(transport);
    const created = await client.callTool({ name: 'create_form', arguments: { title: 'From the SDK', fields: [] } });
    out.created = created.structuredContent?.id;
    out.createdIsError = !!created.isError;
    const before = store.tokens.access_token;
    out.refresh = await auth(provider, { serverUrl: new URL(serverUrl) });
    out.refreshed = store.tokens.access_token !== before;
    const listed = await client.callTool({ name: 'list_forms', arguments: {} });
    out.listedAfterRefresh = (listed.structuredContent?.data || []).map((f) => f.id);
    await client.close();
} catch (e) {
    out.error = String(e && e.stack || e);
}
console.log(JSON.stringify(out));
