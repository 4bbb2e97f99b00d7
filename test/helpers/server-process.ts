// `agentform server` as a user runs it: the built CLI in a child process (run `npm run build`
// first; `npm test` does), ready once its banner is out.
import { spawn } from 'node:child_process';
import { CLI } from './cli.js';

export interface ServerProcess {
  /** Resolves with the banner once the server says how to stop it; rejects if it exits first. */
  ready: Promise<string>;
  /** Everything it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Starts `agentform server <args>` with only PATH and NO_COLOR from this process, plus `env`. */
export function startServerProcess(args: string[], env: NodeJS.ProcessEnv = {}): ServerProcess {
  const child = spawn(process.execPath, [CLI, 'server', ...args], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('press Ctrl-C')) resolve(out);
    });
    child.stderr.on('data', (d: Buffer) => (err += d));
    void exited.then((code) => reject(new Error(`exited ${code} before ready: ${err}`)));
  });
  return {
    ready,
    stdout: () => out,
    stderr: () => err,
    stop: (signal) => {
      child.kill(signal);
      return exited;
    },
  };
}
