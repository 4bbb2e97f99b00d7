// `agentform server`: run the local control plane in the foreground until SIGINT/SIGTERM.
import { resolve } from 'node:path';
import { isLoopbackHost } from '../../../api/credentials.js';
import { UserError } from '../../../errors.js';
import type { LocalEnvironment } from '../../../server/bootstrap.js';
import { credentialsPath } from '../../../server/credentials.js';
import { startLocalControlPlane } from '../../../server/embedded.js';
import { parseServerProfileName, serverProfileFromEnv } from '../../../server/profiles.js';
import type { ServerOptions } from './options.js';

function integerOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UserError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

function rateOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new UserError(`--${name} must be a number from 0 to 1, not ${JSON.stringify(value)}`);
  return n;
}

export async function runServer(options: ServerOptions): Promise<void> {
  const profile = options.profile === undefined ? serverProfileFromEnv() : parseServerProfileName(options.profile, '--profile');
  if (!isLoopbackHost(options.host) && !options.allowRemote) {
    throw new UserError(`refusing to listen on ${options.host}: the local control plane is for this machine only`, 'pass --allow-remote if you really mean it');
  }
  const port = integerOption('port', options.port, 0, 65_535);
  const environments = parseEnvironments(options.environments);
  const faults = {
    latencyMs: integerOption('latency-ms', options.latencyMs, 0, 60_000),
    failRate: rateOption('fail-rate', options.failRate),
    lostResponseRate: rateOption('lost-response-rate', options.lostResponseRate),
    throttleRate: rateOption('throttle-rate', options.throttleRate),
    seed: integerOption('seed', options.seed, 0, 2 ** 32 - 1),
  };
  // The only tool-call path of the local plane is a dev endpoint: enforcing without it would enforce nothing.
  if (options.enforceToolPolicy && !options.devEndpoints)
    throw new UserError('--enforce-tool-policy needs --dev-endpoints', 'tool calls reach the local control plane only through POST /dev/tools/call');
  if (options.durability !== 'full' && options.durability !== 'normal')
    throw new UserError(`--durability must be full or normal, not ${JSON.stringify(options.durability)}`);
  const durability: 'full' | 'normal' = options.durability;
  const dataDir = resolve(options.data);
  let plane;
  try {
    plane = await startLocalControlPlane({
      dataDir,
      host: options.host,
      port,
      environments,
      unarchive: parseUnarchive(options.unarchive),
      faults,
      profile,
      allowRemoteOutbound: options.allowRemoteOutbound === true,
      devEndpoints: options.devEndpoints === true,
      enforceToolPolicy: options.enforceToolPolicy === true,
      durability,
      ...(options.maxConnections === undefined ? {} : { maxConnections: integerOption('max-connections', options.maxConnections, 1, 1_000_000)! }),
      warmUp: true,
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE') throw new UserError(`port ${port} is already in use`, 'pass another --port, or --port 0 for any free one');
    throw error;
  }
  // Listen for the stop signal before announcing readiness: a supervisor may signal at once.
  const stopped = new Promise<NodeJS.Signals>((done) => {
    const stop = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(sig);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const out = process.stdout;
  out.write(`agentform local control plane listening on ${plane.url}${profile === 'default' ? '' : ` (profile ${profile})`}\n`);
  out.write(
    `data: ${dataDir}\ncredentials: ${credentialsPath(dataDir)} (environments: ${environments.map(({ slug, kind }) => (kind ? `${slug} (${kind})` : slug)).join(', ')})\n`,
  );
  if (options.printKeys) for (const { slug } of environments) out.write(`  ${slug}: ${plane.tokens[slug]}\n`);
  if (faults.latencyMs || faults.failRate || faults.lostResponseRate || faults.throttleRate) {
    out.write(
      `fault injection: latency ${faults.latencyMs ?? 0} ms, fail rate ${faults.failRate ?? 0}, throttle rate ${faults.throttleRate ?? 0}, lost responses ${faults.lostResponseRate ?? 0}, seed ${faults.seed ?? 1}\n`,
    );
  }
  if (options.devEndpoints) out.write('dev endpoints on: /dev/cookie, /dev/sessions/simulate, /dev/tools/call, /dev/hooks/deliveries\n');
  if (options.enforceToolPolicy) out.write("tool policy enforced: /dev/tools/call refuses what an agent's policy denies\n");
  out.write('press Ctrl-C to stop\n');
  const signal = await stopped;
  await plane.close();
  out.write(`stopped (${signal})\n`);
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** `--unarchive prod,staging`: the slugs of environments to unarchive. */
function parseUnarchive(list: string | undefined): string[] {
  if (list === undefined) return [];
  const slugs = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = slugs.find((slug) => !SLUG.test(slug));
  if (slugs.length === 0 || bad !== undefined)
    throw new UserError(`--unarchive: invalid slug ${JSON.stringify(bad ?? list)}`, 'name environments by slug, comma-separated');
  return slugs;
}
const KIND = /^[a-z][a-z0-9-]{0,62}$/;

/**
 * `dev,prod:production`: slugs, each optionally with the kind a new environment gets (it cannot
 * change later, so a project declaring `kind: production` needs it here before its first apply).
 */
export function parseEnvironments(list: string): LocalEnvironment[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new UserError('--environments needs at least one environment slug');
  return entries.map((entry) => {
    const [slug = '', kind, ...rest] = entry.split(':');
    if (!SLUG.test(slug)) {
      throw new UserError(
        `--environments: invalid slug ${JSON.stringify(slug)}`,
        'a slug is 1 to 63 lowercase letters, digits and "-", starting with a letter or digit',
      );
    }
    if (kind === undefined) return { slug };
    if (rest.length > 0 || !KIND.test(kind)) {
      throw new UserError(
        `--environments: invalid kind in ${JSON.stringify(entry)}`,
        'write slug:kind, the kind in lowercase letters, digits and "-" (e.g. prod:production)',
      );
    }
    return { slug, kind };
  });
}
