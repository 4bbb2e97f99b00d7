// `agentform mcp`: the MCP server on stdin/stdout until the client closes stdin. stdout carries the
// protocol alone: nothing the tools run may print there (the apply tool captures its console).
import { resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { GlobalOptions } from '../../global-options.js';
import type { McpCommandOptions } from './options.js';
import { createMcpServer } from './server.js';

export async function runMcp(dir: string, options: McpCommandOptions, globals: GlobalOptions): Promise<void> {
  const server = createMcpServer({ projectDir: resolve(dir), allowApply: options.allowApply === true, globals });
  const closed = new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
}
