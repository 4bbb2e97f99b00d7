// `agentform server`: run the local control plane in the foreground until SIGINT/SIGTERM.
import type { Command } from 'commander';
import type { ServerOptions } from './options.js';

export function register(program: Command): void {
  program
    .command('server')
    .description('run the local control plane (SQLite-backed, every API operation) in the foreground')
    .option('--port <port>', 'port to listen on (0 = any free port)', '4466')
    .option('--host <host>', 'address to bind (loopback only unless --allow-remote)', '127.0.0.1')
    .option('--data <dir>', 'data directory (database and credentials.json)', '.agentform/local')
    .option('--environments <list>', 'environments to create, each with a key: slugs, comma-separated, each optionally slug:kind (dev,prod:production)', 'dev')
    .option('--unarchive <list>', 'environments to unarchive before starting (slugs, comma-separated): undoes environments.archive')
    .option('--print-keys', 'print the API keys (otherwise only where they are stored)')
    .option('--allow-remote', 'allow binding a non-loopback address')
    .option('--latency-ms <ms>', 'fault injection: delay every API request')
    .option('--fail-rate <rate>', 'fault injection: share of requests answered 503 before acting (0..1)')
    .option('--lost-response-rate <rate>', 'fault injection: share of requests that act, then drop the connection (0..1)')
    .option('--throttle-rate <rate>', 'fault injection: share of requests answered 429 (retry-after: 0) before acting (0..1)')
    .option('--seed <n>', 'fault injection: PRNG seed, for reproducible faults')
    .option(
      '--profile <name>',
      'how the server fills what the API description leaves open: default or pessimistic (default: $AGENTFORM_SERVER_PROFILE, else default)',
    )
    .option('--allow-remote-outbound', 'let connections.test, providers.models and hook deliveries reach hosts other than this machine')
    .option(
      '--durability <mode>',
      'full: every acknowledged write survives a power loss (fsync per commit); normal: faster, a power loss may lose the last writes',
      'full',
    )
    .option('--max-connections <n>', 'connections open at once; one more is answered 503 with retry-after: 1 (default 256)')
    .option('--dev-endpoints', 'serve the dev-only endpoints under /dev/ (session cookies, the session simulator, the hook delivery list, tool calls)')
    .option('--enforce-tool-policy', "with --dev-endpoints: /dev/tools/call refuses a tool call the agent's tool policy denies")
    .action(async (options: ServerOptions) => {
      const { runServer } = await import('./run.js');
      await runServer(options);
    });
}
