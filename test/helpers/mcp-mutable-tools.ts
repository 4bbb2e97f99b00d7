// An MCP server (the official SDK's) whose tool list a test can change between runs: every
// tools/list answers with the JSON array in `toolsFile`, read at that moment. Streamable HTTP,
// stateless (a fresh server per request), bound to 127.0.0.1 only on a port the OS picks.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

export interface MutableToolsServer {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp */
  url: string;
  /** How many tools/list requests it answered. */
  requests(): number;
  stop(): Promise<void>;
}

export async function startMutableToolsServer({ toolsFile }: { toolsFile: string }): Promise<MutableToolsServer> {
  let listed = 0;
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    const server = new Server({ name: 'agentform-mutable-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      listed += 1;
      return { tools: JSON.parse(await readFile(toolsFile, 'utf8')) as Tool[] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const address = http.address();
  if (!address || typeof address === 'string' || address.address !== '127.0.0.1')
    throw new Error(`mutable tools server bound ${JSON.stringify(address)}, expected 127.0.0.1`);
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    requests: () => listed,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
