// The TypeScript SDK's weather server over Streamable HTTP at /mcp, in the SDK's express app.
//   node server-http.mjs PORT [stateful|stateless]        (binds 127.0.0.1)
// stateful: a transport per session, found by Mcp-Session-Id. stateless: the SDK's documented
// pattern, a new server and transport for every request.
import { randomUUID } from 'node:crypto';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { weatherServer } from './weather.mjs';

const port = Number(process.argv[2] ?? 8002);
const stateless = process.argv[3] === 'stateless';
const app = createMcpExpressApp({ host: '127.0.0.1' });

const badSession = (res) =>
  res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });

if (stateless) {
  app.post('/mcp', async (req, res) => {
    const server = weatherServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
} else {
  const sessions = new Map();
  app.post('/mcp', async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      if (id || !isInitializeRequest(req.body)) return badSession(res);
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (newId) => sessions.set(newId, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await weatherServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  const existing = async (req, res) => {
    const transport = sessions.get(req.headers['mcp-session-id']);
    if (!transport) return res.status(400).send('Invalid or missing session ID');
    await transport.handleRequest(req, res);
  };
  app.get('/mcp', existing);
  app.delete('/mcp', existing);
}

app.listen(port, '127.0.0.1', () =>
  console.error(`ts-sdk weather server (${stateless ? 'stateless' : 'stateful'}) on 127.0.0.1:${port}`),
);
