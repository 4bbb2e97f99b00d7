// Starts @modelcontextprotocol/server-everything (streamable HTTP transport) as a child
// process bound to 127.0.0.1 only, for tests that need a real MCP server.
//
// The server itself listens on every interface; the preload in
// test/fixtures/mcp/force-loopback.mjs forces loopback and reports the bound address,
// which we check here before handing out the URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EverythingServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** Address the child reported after listening (always 127.0.0.1). */
  address: { address: string; family: string; port: number };
  pid: number;
  stop(): Promise<void>;
}

const LISTENING_MARKER = 'AGENTFORM_TEST_LISTENING ';
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

const preloadPath = fileURLToPath(new URL('../fixtures/mcp/force-loopback.mjs', import.meta.url));
const extraToolPath = fileURLToPath(new URL('../fixtures/mcp/extra-tool.mjs', import.meta.url));

function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return join(dirname(packageJson), 'dist', 'index.js');
}

// Children still alive when the test process exits are killed, whatever happened.
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
  });
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
  }
  liveChildren.delete(child);
}

/** `extraToolFile`: while that file exists, the server also serves the tool it names (test/fixtures/mcp/extra-tool.mjs). */
export async function startEverythingServer(options: { extraToolFile?: string } = {}): Promise<EverythingServer> {
  installExitHook();
  const extra = options.extraToolFile ? ['--import', extraToolPath] : [];
  const child = spawn(process.execPath, ['--import', preloadPath, ...extra, everythingEntry(), 'streamableHttp'], {
    env: { ...process.env, PORT: '0', ...(options.extraToolFile ? { AGENTFORM_TEST_EXTRA_TOOL_FILE: options.extraToolFile } : {}) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  liveChildren.add(child);

  let stderr = '';
  try {
    const address = await new Promise<EverythingServer['address']>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server-everything did not start within ${START_TIMEOUT_MS} ms:\n${stderr}`)), START_TIMEOUT_MS);
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const line = stderr.split('\n').find((l) => l.startsWith(LISTENING_MARKER));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line.slice(LISTENING_MARKER.length)) as EverythingServer['address']);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server-everything exited early (code ${code}, signal ${signal}):\n${stderr}`));
      });
    });
    if (address.address !== '127.0.0.1') {
      throw new Error(`server-everything bound ${address.address}, expected 127.0.0.1 only`);
    }
    // Keep draining stderr so the child never blocks on a full pipe.
    child.stderr!.resume();
    return {
      url: `http://127.0.0.1:${address.port}/mcp`,
      address,
      pid: child.pid!,
      stop: () => killChild(child),
    };
  } catch (err) {
    await killChild(child);
    throw err;
  }
}
