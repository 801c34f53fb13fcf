// The client side with the TypeScript SDK: spawns a stdio server, connects, and makes N
// sequential get_weather calls; prints one JSON line.
//   node client.mjs N COMMAND [ARGS...]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const n = Number(process.argv[2]);
const [command, ...args] = process.argv.slice(3);

const started = performance.now();
const client = new Client({ name: 'ts-bench-client', version: '0.1.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const initUs = Math.round((performance.now() - started) * 1000);

const latencies = [];
let errors = 0;
const callsStarted = performance.now();
for (let i = 0; i < n; i++) {
  const sent = performance.now();
  const result = await client.callTool({ name: 'get_weather', arguments: { city: 'shenzhen' } });
  latencies.push((performance.now() - sent) * 1000);
  const text = String(result.content?.[0]?.text);
  if (result.isError || !text.includes('thunderstorms')) errors++;
}
const elapsed = (performance.now() - callsStarted) / 1000;
latencies.sort((a, b) => a - b);
const quantile = (q) => Math.round(latencies[Math.round((latencies.length - 1) * q)]);
console.log(JSON.stringify({
  client: 'ts-sdk',
  n,
  init_us: initUs,
  elapsed_s: Number(elapsed.toFixed(4)),
  calls_per_s: Number((n / elapsed).toFixed(1)),
  p50_us: quantile(0.5),
  p99_us: quantile(0.99),
  errors,
}));
await client.close();
process.exit(errors ? 2 : 0);
