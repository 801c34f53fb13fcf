// A hand-written MCP stdio server in plain node (readline and JSON.parse, no SDK): the practical
// limit for a node server, beside the SDK's.
//   node raw-server.mjs
import { createInterface } from 'node:readline';

const REPORTS = { shenzhen: 'thunderstorms 30C', beijing: 'sunny 22C', london: 'drizzle 12C', paris: 'cloudy 16C', tokyo: 'clear 18C' };
const GET_WEATHER = {
  name: 'get_weather',
  description: 'Get the current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const ok = (id, result) => write({ jsonrpc: '2.0', id, result });
const fail = (id, code, message) => write({ jsonrpc: '2.0', id, error: { code, message } });

const handlers = {
  initialize: (params) => ({
    protocolVersion: params?.protocolVersion ?? '2024-11-05',
    capabilities: { tools: {} },
    serverInfo: { name: 'raw-node-weather', version: '0.1.0' },
  }),
  ping: () => ({}),
  'tools/list': () => ({ tools: [GET_WEATHER] }),
  'tools/call': (params) => {
    if (params?.name !== 'get_weather') return undefined;
    const city = params.arguments?.city ?? '';
    return { content: [{ type: 'text', text: `${city}: ${REPORTS[city] ?? 'unknown'}` }], isError: false };
  },
};

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (line.trim() === '') return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return fail(null, -32700, 'Parse error');
  }
  const { id, method, params } = message;
  if (id === undefined) return; // a notification
  const handler = handlers[method];
  if (!handler) return fail(id, -32601, 'Method not found');
  const result = handler(params);
  if (result === undefined) return fail(id, -32602, 'Unknown tool');
  ok(id, result);
});
