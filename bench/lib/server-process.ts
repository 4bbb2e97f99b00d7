// A fresh `agentform server` in a child process (its own event loop, as in the peer benchmark),
// in a temp data dir that is removed when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './run-cli.js';

const START_TIMEOUT_MS = 30_000;

export interface Server {
  url: string;
  token: string;
  child: ChildProcess;
}

async function startServerProcess(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'server', '--port', '0', '--data', dataDir, '--environments', 'bench', '--print-keys'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agentform server did not start within ${START_TIMEOUT_MS} ms: ${out}`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(deadline);
      reject(new Error(`agentform server exited ${code}: ${out}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      const token = /bench: (svc_\S+)/.exec(out)?.[1];
      if (url && token && out.includes('press Ctrl-C')) {
        clearTimeout(deadline);
        resolve({ url, token, child });
      }
    });
  });
}

/** `run` against a fresh `agentform server` in a temp data dir, stopped and removed afterwards. */
export async function withServerProcess<T>(prefix: string, run: (server: Server) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const server = await startServerProcess(join(dataDir, 'data'));
  try {
    return await run(server);
  } finally {
    const exited = server.child.exitCode !== null || server.child.signalCode !== null;
    if (!exited) {
      const gone = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
