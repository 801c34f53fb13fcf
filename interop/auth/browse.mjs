// A headless "browser" for the auth tests: GETs the URL given, follows every redirect with a
// cookie jar (the authorization server's interaction cookies), and stops after the request to
// a loopback redirect URI (the client's listener) or on a page that does not redirect. Prints
// the URLs visited on stderr and exits 0 when the last response was a success.
//
// Usage: node browse.mjs [--stop-at PREFIX] URL
// With --stop-at, a redirect to a URL starting with PREFIX is not followed: the URL is printed
// on stdout (for a client that takes the redirect URL from a hook, not a listener).
const jar = new Map();
const args = process.argv.slice(2);
let stopAt;
if (args[0] === '--stop-at') {
  stopAt = args[1];
  args.splice(0, 2);
}
let url = args[0];
if (!url) {
  console.error('usage: node browse.mjs [--stop-at PREFIX] URL');
  process.exit(2);
}
for (let hop = 0; hop < 20; hop += 1) {
  const headers = {};
  const host = new URL(url).host;
  const cookies = jar.get(host);
  if (cookies && cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(url, { redirect: 'manual', headers });
  console.error(`browse: ${res.status} ${url}`);
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair.indexOf('=');
    if (!jar.has(host)) jar.set(host, new Map());
    jar.get(host).set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    url = new URL(location, url).toString();
    if (stopAt && url.startsWith(stopAt)) {
      console.log(url);
      process.exit(0);
    }
    continue;
  }
  const body = await res.text();
  if (res.status >= 400) console.error(body.slice(0, 2000));
  process.exit(res.ok ? 0 : 1);
}
console.error('browse: too many redirects');
process.exit(1);
