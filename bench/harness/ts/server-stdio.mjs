// The TypeScript SDK's weather server over stdio.
//   node server-stdio.mjs
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { weatherServer } from './weather.mjs';

await weatherServer().connect(new StdioServerTransport());
