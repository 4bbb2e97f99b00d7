import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTools } from '../../src/server/mcp-tools.js';
import { startEverythingServer, type EverythingServer } from '../helpers/mcp-everything.js';

describe('listTools against @modelcontextprotocol/server-everything', () => {
  let everything: EverythingServer;

  beforeAll(async () => {
    everything = await startEverythingServer();
  });
  afterAll(async () => {
    await everything?.stop();
  });

  it('runs the server on loopback only', () => {
    expect(everything.address.address).toBe('127.0.0.1');
    expect(everything.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('lists the tools with names, schemas and annotations', async () => {
    const tools = await listTools(everything.url);
    const names = tools.map((t) => t.name);

    // The issue expects 13; assert what the installed version really offers, loosely.
    expect(tools.length).toBeGreaterThanOrEqual(10);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum']));

    const echo = tools.find((t) => t.name === 'echo')!;
    expect(echo.description).toBeTruthy();
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: expect.anything() } });

    // Version 2026.8.31 returns 13 tools, every one annotated.
    const annotated = tools.filter((t) => t.annotations !== undefined);
    expect(echo.annotations).toBeDefined();
    expect(annotated.length).toBeGreaterThanOrEqual(tools.length / 2);
    for (const tool of annotated) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        const value = tool.annotations![hint];
        if (value !== undefined) expect(typeof value).toBe('boolean');
      }
    }
  });

  it('sends extra headers without breaking the session', async () => {
    const tools = await listTools(everything.url, { headers: { 'x-agentform-test': '1' } });
    expect(tools.length).toBeGreaterThanOrEqual(10);
  });
});

/** A loopback HTTP server whose behaviour each test picks. */
async function startHttp(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, server };
}

async function closeHttp(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('listTools failures', () => {
  it('reports a refused connection clearly', async () => {
    // Bind then close to get a loopback port nobody listens on.
    const { url, server } = await startHttp(() => undefined);
    await closeHttp(server);
    await expect(listTools(url)).rejects.toThrow(new RegExp(`^could not reach MCP server at ${url.replace(/[.]/g, '\\.')}: .*ECONNREFUSED`));
  });

  it('times out when the server never answers', async () => {
    const { url, server } = await startHttp(() => {
      /* hold the request open forever */
    });
    try {
      const started = Date.now();
      await expect(listTools(url, { timeoutMs: 300 })).rejects.toThrow(/could not reach MCP server at .*: timed out after 300 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await closeHttp(server);
    }
  });

  it('reports an HTTP error answer', async () => {
    const { url, server } = await startHttp((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no MCP here');
    });
    try {
      await expect(listTools(url)).rejects.toThrow(/could not reach MCP server at .*: HTTP 404: .*no MCP here/);
    } finally {
      await closeHttp(server);
    }
  });

  it('rejects a non-http URL and never shows credentials', async () => {
    await expect(listTools('ftp://example.invalid/mcp')).rejects.toThrow(/only http and https/);
    const { url, server } = await startHttp(() => undefined);
    await closeHttp(server);
    const withCredentials = url.replace('http://', 'http://user:hunter2@');
    const error = (await listTools(withCredentials).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/could not reach MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp: credentials in the URL are not supported/);
    expect(error.message).not.toContain('hunter2');
  });

  it('follows nextCursor pagination', async () => {
    // A minimal hand-written MCP server (JSON responses, no session) that pages its tools.
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      '': { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'p2' },
      p2: {
        tools: [{ name: 'b', inputSchema: { type: 'object' }, annotations: { title: 'B', readOnlyHint: true } }],
        nextCursor: 'p3',
      },
      p3: { tools: [{ name: 'c', description: 'last', inputSchema: { type: 'object' } }] },
    };
    const seenCursors: string[] = [];
    const { url, server } = await startHttp((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        if (req.method !== 'POST') {
          res.writeHead(405).end();
          return;
        }
        const message = JSON.parse(raw) as { id?: number; method: string; params?: { cursor?: string } };
        if (message.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        let result: unknown;
        if (message.method === 'initialize') {
          result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'pager', version: '1' } };
        } else if (message.method === 'tools/list') {
          const cursor = message.params?.cursor ?? '';
          seenCursors.push(cursor);
          result = pages[cursor];
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      });
    });
    try {
      const tools = await listTools(url);
      expect(tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
      expect(seenCursors).toEqual(['', 'p2', 'p3']);
      expect(tools[1]!.annotations).toEqual({ title: 'B', readOnlyHint: true });
      expect(tools[2]!.description).toBe('last');
    } finally {
      await closeHttp(server);
    }
  });
});
