// A real OAuth 2.1 / OpenID Connect authorization server for the end-to-end auth tests:
// oidc-provider (OpenID-certified) with dynamic client registration, PKCE, resource indicators
// (RFC 8707) issuing JWT access tokens (RFC 9068), refresh tokens with rotation, client
// credentials, introspection and revocation. Listens on 127.0.0.1 only.
//
// The login and consent steps are automated: there is no login page. An interaction logs in
// the account named by the AS_ACCOUNT environment variable (default "alice") and grants every
// scope and resource the client asked for, then redirects on; a test "browser" only follows
// redirects (see browse.mjs).
//
// Usage: node provider.mjs NODE_MODULES [PORT]   (PORT 0 or nothing: any free port)
// NODE_MODULES is where scripts/interop-setup.sh installed this directory's package.json.
// Prints one JSON line on stdout once listening: {"issuer": "http://127.0.0.1:PORT"}.
//
// AS_REQUEST_LOG=FILE logs each request's parameters (see below); ACCESS_TOKEN_TTL sets the
// lifetime of access tokens from the authorization code grant and refreshes.
//
// Pre-registered clients (client_secret_basic, client credentials only):
//   m2m / m2m-secret         tokens live ACCESS_TOKEN_TTL seconds (default 3600)
//   m2m-short / m2m-secret   tokens live 1 second (expiry tests)
//   m2m-opaque / m2m-secret  opaque access tokens (introspection and revocation tests); it
//                            may also introspect and revoke
import http from 'node:http';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const modules = process.argv[2];
if (!modules) {
  console.error('usage: node provider.mjs NODE_MODULES [PORT]');
  process.exit(2);
}
const entry = createRequire(`${path.resolve(modules)}/`).resolve('oidc-provider');
const { default: Provider } = await import(pathToFileURL(entry));

const port = Number(process.argv[3] || 0);
const account = process.env.AS_ACCOUNT || 'alice';
const accessTtl = Number(process.env.ACCESS_TOKEN_TTL || 3600);
const scopes = ['mcp', 'weather:admin'];

const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: crypto.randomUUID(), use: 'sig', alg: 'RS256' };

const server = http.createServer();
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const m2m = (client_id) => ({
  client_id,
  client_secret: 'm2m-secret',
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
});

const provider = new Provider(issuer, {
  clients: [m2m('m2m'), m2m('m2m-short'), m2m('m2m-opaque')],
  jwks: { keys: [jwk] },
  scopes: ['openid', 'offline_access', ...scopes],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resource, client) => {
        if (!/^https?:\/\//.test(resource)) throw new Error('not an http(s) resource');
        const format = client.clientId === 'm2m-opaque' ? 'opaque' : 'jwt';
        return { scope: scopes.join(' '), audience: resource, accessTokenFormat: format, jwt: { sign: { alg: 'RS256' } } };
      },
    },
  },
  pkce: { required: () => true },
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: () => true,
  clientBasedCORS: () => true,
  ttl: {
    AccessToken: () => accessTtl,
    ClientCredentials: (_ctx, _token, client) => (client.clientId === 'm2m-short' ? 1 : accessTtl),
    AuthorizationCode: 60,
    Grant: 14 * 24 * 3600,
    Interaction: 3600,
    RefreshToken: 14 * 24 * 3600,
    Session: 14 * 24 * 3600,
  },
});
provider.proxy = false;
// AS_REQUEST_LOG=FILE: one JSON line per request with its path, the parameters the provider
// read (tokens, codes) and the Authorization header, so a test can tell which credentials
// reached this AS.
if (process.env.AS_REQUEST_LOG) {
  const fs = await import('node:fs');
  provider.use(async (ctx, next) => {
    await next();
    const params = {};
    for (const [k, v] of Object.entries(ctx.oidc?.params || {})) if (v !== undefined) params[k] = v;
    const line = { path: ctx.path, params, authorization: ctx.get('authorization') || undefined };
    fs.appendFileSync(process.env.AS_REQUEST_LOG, `${JSON.stringify(line)}\n`);
  });
}
provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error:', err));

// The automated interaction: log in `account`, grant what was asked, carry on.
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session, grantId } = details;
  if (process.env.AS_DEBUG) console.error('interaction', prompt.name, prompt.reasons, session?.accountId);
  if (prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
  }
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const missing = prompt.details || {};
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [resource, wanted] of Object.entries(missing.missingResourceScopes || {})) {
    grant.addResourceScope(resource, wanted.join(' '));
  }
  const id = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId: id } }, { mergeWithLastSubmission: true });
}

const callback = provider.callback();
server.on('request', (req, res) => {
  if (req.url.startsWith('/interaction/')) {
    interaction(req, res).catch((err) => {
      console.error('interaction failed:', err);
      res.statusCode = 500;
      res.end(String(err));
    });
    return;
  }
  callback(req, res);
});

// A test reads the first line and may then close the pipe: later writes must not end us.
process.stdout.on('error', () => {});
console.log(JSON.stringify({ issuer }));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
