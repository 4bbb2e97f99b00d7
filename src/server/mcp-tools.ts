// Lists the tools of a remote MCP server (what `connections.test` returns): connect over
// streamable HTTP with the official SDK, page through tools/list, close.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ToolDescriptor } from '../model/api.js';

export interface ListToolsOptions {
  /** Whole-operation deadline: connect + every tools/list page + close. */
  timeoutMs?: number;
  /** Extra request headers, e.g. authorization; never echoed into error messages. */
  headers?: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** A server that keeps returning a cursor must not keep us paging forever. */
const MAX_PAGES = 1_000;
const MAX_REASON_CHARS = 300;
const CLIENT_INFO = { name: 'agentform', version: '0.1.0' };

type SdkTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

function toToolDescriptor(tool: SdkTool): ToolDescriptor {
  const descriptor: ToolDescriptor = { name: tool.name };
  if (tool.description !== undefined) descriptor.description = tool.description;
  if (tool.inputSchema !== undefined) descriptor.inputSchema = tool.inputSchema;
  const a = tool.annotations;
  if (a) {
    const annotations: NonNullable<ToolDescriptor['annotations']> = {};
    if (a.title !== undefined) annotations.title = a.title;
    if (a.readOnlyHint !== undefined) annotations.readOnlyHint = a.readOnlyHint;
    if (a.destructiveHint !== undefined) annotations.destructiveHint = a.destructiveHint;
    if (a.idempotentHint !== undefined) annotations.idempotentHint = a.idempotentHint;
    if (a.openWorldHint !== undefined) annotations.openWorldHint = a.openWorldHint;
    descriptor.annotations = annotations;
  }
  return descriptor;
}

/** "fetch failed" alone says nothing; the useful part (ECONNREFUSED, ...) is in the cause chain. */
function describeError(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      let text = current.message;
      if (current instanceof StreamableHTTPError && typeof code === 'number' && code > 0) text = `HTTP ${code}: ${text}`;
      else if (typeof code === 'string' && !text.includes(code)) text = `${text} (${code})`;
      if (text && !parts.includes(text)) parts.push(text);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  const joined = parts.join(': ') || 'unknown error';
  // The body of an error page can be long; the first line or so is enough to explain.
  return joined.length > MAX_REASON_CHARS ? `${joined.slice(0, MAX_REASON_CHARS)}…` : joined;
}

/** The URL as shown in messages: user:password@ is dropped so credentials never reach a log. */
function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function parseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`could not reach MCP server at ${url}: not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`could not reach MCP server at ${url}: only http and https URLs are supported`);
  }
  if (parsed.username || parsed.password) {
    // Say so up front rather than let fetch echo the credentials back in its error.
    throw new Error(`could not reach MCP server at ${displayUrl(url)}: credentials in the URL are not supported; pass an authorization header instead`);
  }
  return parsed;
}

export async function listTools(url: string, opts: ListToolsOptions = {}): Promise<ToolDescriptor[]> {
  const endpoint = parseUrl(url);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: opts.headers ? { headers: opts.headers } : undefined,
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const requestOptions = { signal: deadline.signal, timeout: timeoutMs };

  try {
    await client.connect(transport, requestOptions);
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
      for (const tool of result.tools) tools.push(toToolDescriptor(tool));
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
    throw new Error(`tools/list returned a next page cursor more than ${MAX_PAGES} times`);
  } catch (err) {
    const reason = deadline.signal.aborted ? `timed out after ${timeoutMs} ms` : describeError(err);
    throw new Error(`could not reach MCP server at ${displayUrl(url)}: ${reason}`, { cause: err });
  } finally {
    clearTimeout(timer);
    // close() aborts any fetch still in flight (the deadline may have fired mid-request).
    await client.close().catch(() => undefined);
  }
}

/** What tools/call answered: the MCP result as the server sent it (content, isError, ...). */
export type ToolCallAnswer = Record<string, unknown>;

/** Calls one tool of a remote MCP server (the dev tool-call endpoint): connect, tools/call, close. */
export async function callTool(url: string, name: string, args: Record<string, unknown>, opts: ListToolsOptions = {}): Promise<ToolCallAnswer> {
  const endpoint = parseUrl(url);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: opts.headers ? { headers: opts.headers } : undefined });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const requestOptions = { signal: deadline.signal, timeout: timeoutMs };
  try {
    await client.connect(transport, requestOptions);
    return (await client.callTool({ name, arguments: args }, undefined, requestOptions)) as ToolCallAnswer;
  } catch (err) {
    const reason = deadline.signal.aborted ? `timed out after ${timeoutMs} ms` : describeError(err);
    throw new Error(`could not call ${name} on MCP server at ${displayUrl(url)}: ${reason}`, { cause: err });
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => undefined);
  }
}
