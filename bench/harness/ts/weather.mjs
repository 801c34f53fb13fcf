// The weather tool of the benchmark on the TypeScript SDK's McpServer (registerTool with a zod
// input shape), shared by the stdio and the HTTP servers.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const REPORTS = {
  shenzhen: 'thunderstorms 30C',
  beijing: 'sunny 22C',
  london: 'drizzle 12C',
  paris: 'cloudy 16C',
  tokyo: 'clear 18C',
};

export const weather = (city) => `${city}: ${REPORTS[city] ?? 'unknown'}`;

/** A fresh McpServer with the one tool. */
export function weatherServer() {
  const server = new McpServer({ name: 'ts-weather', version: '0.1.0' });
  server.registerTool(
    'get_weather',
    { description: 'Get the current weather for a city', inputSchema: { city: z.string() } },
    async ({ city }) => ({ content: [{ type: 'text', text: weather(city) }] }),
  );
  return server;
}
