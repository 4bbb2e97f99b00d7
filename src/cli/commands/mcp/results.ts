// What the MCP tools answer: text content, and errors as tool results (isError) the agent can read
// and act on, never as a crashed server. Messages are the CLI's own, which never hold a secret.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UserError } from '../../../errors.js';

export function textResult(...texts: string[]): CallToolResult {
  return { content: texts.map((text) => ({ type: 'text', text })) };
}

export function errorResult(error: unknown, ...details: string[]): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof UserError && error.hint ? `\nhint: ${error.hint}` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${message}${hint}` }, ...details.filter((text) => text !== '').map((text) => ({ type: 'text' as const, text }))],
  };
}

/** Runs a tool's work; a thrown error becomes an error result. */
export async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return errorResult(error);
  }
}
