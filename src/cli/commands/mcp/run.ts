// `agentform mcp`: the MCP server on stdin/stdout until the client closes stdin. stdout carries the
// protocol alone: nothing the tools run may print there (the apply tool captures its console).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT_FILE, ROOT_FILE_ALTERNATIVE } from '../../../config/files.js';
import { UserError } from '../../../errors.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { GlobalOptions } from '../../global-options.js';
import type { McpCommandOptions } from './options.js';
import { createMcpServer } from './server.js';

export async function runMcp(dir: string, options: McpCommandOptions, globals: GlobalOptions): Promise<void> {
  const projectDir = resolve(dir);
  // A client started in the wrong directory learns it at once (its log shows stderr), not per tool.
  if (![ROOT_FILE, ROOT_FILE_ALTERNATIVE].some((file) => existsSync(join(projectDir, file)))) {
    throw new UserError(`no ${ROOT_FILE} in ${projectDir}`, 'name the project directory: agentform mcp DIR, or -C DIR');
  }
  const server = createMcpServer({ projectDir, allowApply: options.allowApply === true, globals });
  const closed = new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
}
