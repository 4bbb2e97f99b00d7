// Side-by-side benchmark: decK 1.4 (against kong-mock.mjs) vs agentform (against `agentform server`).
// Copied from the session's ../shared/bench/peer-deck/ (issue 17) into the repository, so that
// `npm run bench` (bench/scenarios/peer-deck.ts) runs it; changes: the data dir is created 0700 (the
// control plane refuses a group/world-readable one), a `bare` row times `node -e 0`, and
// PEER_DURABILITY sets the local control plane's --durability.
// Both servers run as separate node processes with count-hook.mjs preloaded (identical in-process
// request counting) and the same kind of latency: the request is read, then answered after a
// setTimeout of L ms (kong-mock --latency-ms / agentform server --latency-ms).
// Runs alternate between the tools (ABAB / BABA) so machine noise hits both alike.
//   node runner.mjs [--sizes 1000,5000] [--latencies 0,20] [--reps 5] [--out results.json]
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const SIZES = opt('sizes', '1000,5000').split(',').map(Number);
const LATENCIES = opt('latencies', '0,20').split(',').map(Number);
const REPS = Number(opt('reps', '5'));
const ROOT = process.env.PEER_OUT;
if (!ROOT) throw new Error('set PEER_OUT (run.sh does)');
const OUT = opt('out', join(ROOT, 'results.json'));
const PARALLELISM = 16;
const RUN_TIMEOUT_MS = 180_000;

const WORK = join(ROOT, 'work');
const LOGS = join(ROOT, 'logs');
const AF_ROOT = process.env.AF;
if (!AF_ROOT) throw new Error('set AF to the root of a built agentform checkout');
const AF_CLI = join(AF_ROOT, 'dist/cli/agentform.js');
const HOOK = new URL('./count-hook.mjs', import.meta.url).href;
const KONG = { port: 18001, control: 18101 };
const AFS = { port: 18002, control: 18102 };
const BASE_ENV = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', DECK_ANALYTICS: 'off', LANG: 'C.UTF-8' };
// agentform's parse cache (README "Parse cache"): where it lives, or `off`, passed through.
if (process.env.AGENTFORM_PARSE_CACHE) BASE_ENV.AGENTFORM_PARSE_CACHE = process.env.AGENTFORM_PARSE_CACHE;

mkdirSync(LOGS, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------- servers ----------
const started = new Set();
function startProcess(name, argv, env) {
  const out = openSync(join(LOGS, `${name}.log`), 'a');
  const child = spawn(process.execPath, argv, { env: { ...BASE_ENV, ...env }, stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const handle = { name, child, exited };
  started.add(handle);
  return handle;
}
async function stopProcess(handle) {
  if (!handle) return;
  if (handle.child.exitCode === null && handle.child.signalCode === null) {
    process.kill(handle.child.pid, 'SIGTERM');
    const timer = setTimeout(() => handle.child.exitCode === null && process.kill(handle.child.pid, 'SIGKILL'), 5000);
    await handle.exited;
    clearTimeout(timer);
  }
  started.delete(handle);
}
async function waitPort(port, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`port ${port} did not open`);
}
async function control(port, path, method = 'GET') {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
  return res.json();
}

let serverSeq = 0;
async function startServers(latency) {
  serverSeq += 1;
  const kong = startProcess(`kong-mock-${serverSeq}`, ['--import', HOOK, new URL('./kong-mock.mjs', import.meta.url).pathname, '--port', String(KONG.port), '--latency-ms', String(latency)], { BENCH_CONTROL_PORT: String(KONG.control) });
  const dataDir = join(ROOT, 'data', `af-${serverSeq}`);
  rmSync(dataDir, { recursive: true, force: true });
  // The control plane refuses a data dir other users could read (it holds its secrets).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const serverArgs = ['--import', HOOK, AF_CLI, 'server', '--port', String(AFS.port), '--data', dataDir, '--environments', 'dev'];
  if (latency > 0) serverArgs.push('--latency-ms', String(latency));
  // PEER_DURABILITY=normal: no fsync per commit, as decK's in-memory mock keeps nothing on disk.
  if (process.env.PEER_DURABILITY) serverArgs.push('--durability', process.env.PEER_DURABILITY);
  const af = startProcess(`af-server-${serverSeq}`, serverArgs, { BENCH_CONTROL_PORT: String(AFS.control) });
  await Promise.all([waitPort(KONG.port), waitPort(KONG.control), waitPort(AFS.port), waitPort(AFS.control)]);
  const credentials = join(dataDir, 'credentials.json');
  for (let i = 0; i < 200 && !existsSync(credentials); i++) await sleep(50);
  const token = JSON.parse(readFileSync(credentials, 'utf8')).environments.dev.token;
  return { kong, af, dataDir, token };
}
async function stopServers(servers) {
  await Promise.all([stopProcess(servers.kong), stopProcess(servers.af)]);
  rmSync(servers.dataDir, { recursive: true, force: true });
}

// ---------- timed tool runs ----------
let runSeq = 0;
async function timed(tool, argv, env, controlPort, allowed) {
  runSeq += 1;
  const timeFile = join(LOGS, `run-${runSeq}.time`);
  const logFile = join(LOGS, `run-${runSeq}-${tool}.log`);
  if (controlPort) await control(controlPort, '/reset', 'POST');
  const out = openSync(logFile, 'w');
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%e %M %U %S', '-o', timeFile, ...argv], { env: { ...BASE_ENV, ...env }, stdio: ['ignore', out, out] });
  closeSync(out);
  const timer = setTimeout(() => process.kill(child.pid, 'SIGKILL'), RUN_TIMEOUT_MS);
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  const wallMs = performance.now() - t0;
  clearTimeout(timer);
  const counts = controlPort ? await control(controlPort, '/counts') : { total: 0, connections: 0, byRoute: {}, cpuMs: 0 };
  // /usr/bin/time prefixes "Command exited with non-zero status N" when the command fails.
  const timeLine = readFileSync(timeFile, 'utf8').trim().split('\n').pop();
  const [, rssKb, user, sys] = timeLine.split(' ').map(Number);
  if (!allowed.includes(code)) {
    throw new Error(`${tool} ${argv.join(' ')} exited ${code}; see ${logFile}\n${readFileSync(logFile, 'utf8').slice(-1500)}`);
  }
  return { tool, code, wallMs, rssMb: rssKb / 1024, clientCpuMs: (user + sys) * 1000, requests: counts.total, connections: counts.connections, byRoute: counts.byRoute, serverCpuMs: counts.cpuMs, log: logFile };
}

const deckArgs = (command, file, extra = []) => ['deck', command, '--kong-addr', `http://127.0.0.1:${KONG.port}`, '-s', file, '--parallelism', String(PARALLELISM), ...extra];
const afArgs = (command, dir, extra = []) => [process.execPath, AF_CLI, command, dir, '-e', 'dev', '--url', `http://127.0.0.1:${AFS.port}`, ...extra];

function runners(n, servers) {
  const w = join(WORK, String(n));
  const afEnv = { AGENTFORM_TOKEN: servers.token };
  return {
    sync: {
      deck: () => timed('deck', deckArgs('sync', join(w, 'kong.yaml')), {}, KONG.control, [0]),
      agentform: () => timed('agentform', afArgs('apply', join(w, 'agentform'), ['--auto-approve', '--parallelism', String(PARALLELISM)]), afEnv, AFS.control, [0]),
    },
    nochange: {
      deck: () => timed('deck', deckArgs('diff', join(w, 'kong.yaml'), ['--non-zero-exit-code']), {}, KONG.control, [0]),
      agentform: () => timed('agentform', afArgs('plan', join(w, 'agentform'), ['--detailed-exitcode']), afEnv, AFS.control, [0]),
    },
    changed: {
      deck: () => timed('deck', deckArgs('diff', join(w, 'kong-changed.yaml'), ['--non-zero-exit-code']), {}, KONG.control, [2]),
      agentform: () => timed('agentform', afArgs('plan', join(w, 'agentform-changed'), ['--detailed-exitcode']), afEnv, AFS.control, [2]),
    },
  };
}

// ---------- lower bounds: round trips on the critical path x latency ----------
const isWrite = (tool, route) => (tool === 'deck' ? !route.startsWith('GET ') : !/\/(list|get)$/.test(route));
function roundTrips(tool, run) {
  if (run.requests === 0) return { reads: 0, writes: 0, writeRequests: 0 };
  const entries = Object.entries(run.byRoute);
  const writes = entries.filter(([route]) => isWrite(tool, route)).reduce((s, [, c]) => s + c, 0);
  if (tool === 'deck') {
    // GET / (version) first, then every collection at once, each paged serially (size=1000).
    const pages = Math.max(run.byRoute['GET /services'] ?? 1, run.byRoute['GET /routes'] ?? 1);
    // sync: services, barrier, then routes (each stage ceil(count/parallelism) rounds).
    const svc = run.byRoute['PUT /services/:id'] ?? 0;
    const rts = run.byRoute['PUT /routes/:id'] ?? 0;
    return { reads: 1 + pages, writes: Math.ceil(svc / PARALLELISM) + Math.ceil(rts / PARALLELISM), writeRequests: writes };
  }
  // agentform: every kind read at once (<= READ_CONCURRENCY 8 in flight); writes follow the
  // dependency graph (providers/connections, then agents): at least 2 rounds, else ceil(W/P).
  const reads = entries.filter(([route]) => !isWrite(tool, route)).reduce((s, [, c]) => s + c, 0);
  return { reads: Math.ceil(reads / 8), writes: writes === 0 ? 0 : Math.max(2, Math.ceil(writes / PARALLELISM)), writeRequests: writes };
}

// Offline rows (no server): process start (`deck version` / `agentform --version`) and validate.
function offline(n) {
  const w = join(WORK, String(n));
  return {
    // Bare `node -e 0`, in the decK column: what any Node process costs before agentform's own work.
    bare: {
      deck: () => timed('deck', [process.execPath, '-e', '0'], {}, null, [0]),
      agentform: () => timed('agentform', [process.execPath, '-e', '0'], {}, null, [0]),
    },
    startup: {
      deck: () => timed('deck', ['deck', 'version'], {}, null, [0]),
      agentform: () => timed('agentform', [process.execPath, AF_CLI, '--version'], {}, null, [0]),
    },
    validate: {
      deck: () => timed('deck', ['deck', 'validate', '-s', join(w, 'kong.yaml')], {}, null, [0]),
      agentform: () => timed('agentform', [process.execPath, AF_CLI, 'validate', join(w, 'agentform')], {}, null, [0]),
    },
  };
}

// ---------- main ----------
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
const raw = [];
function record(n, latency, scenario, tool, runs) {
  const rt = roundTrips(tool, runs[runs.length - 1]);
  const row = {
    tool, scenario, n, latency,
    wallMs: median(runs.map((r) => r.wallMs)),
    wallMinMs: Math.min(...runs.map((r) => r.wallMs)),
    wallMaxMs: Math.max(...runs.map((r) => r.wallMs)),
    rssMb: Math.max(...runs.map((r) => r.rssMb)),
    clientCpuMs: median(runs.map((r) => r.clientCpuMs)),
    serverCpuMs: median(runs.map((r) => r.serverCpuMs)),
    requests: median(runs.map((r) => r.requests)),
    connections: median(runs.map((r) => r.connections)),
    roundTrips: rt.reads + rt.writes,
    lowerBoundMs: (rt.reads + rt.writes) * latency,
    byRoute: runs[runs.length - 1].byRoute,
    reps: runs.length,
  };
  results.push(row);
  raw.push(...runs.map((r) => ({ n, latency, scenario, ...r })));
  console.log(`${scenario.padEnd(8)} N=${n} L=${latency} ${tool.padEnd(9)} wall ${row.wallMs.toFixed(0)} ms [${runs.map((r) => r.wallMs.toFixed(0)).join(', ')}] rss ${row.rssMb.toFixed(0)} MB cpu ${row.clientCpuMs.toFixed(0)} ms srv ${row.serverCpuMs.toFixed(0)} ms req ${row.requests} rt ${row.roundTrips} lb ${row.lowerBoundMs} ms`);
}
const save = () => writeFileSync(OUT, JSON.stringify({ when: new Date().toISOString(), sizes: SIZES, latencies: LATENCIES, reps: REPS, parallelism: PARALLELISM, results, raw }, null, 2) + '\n');

async function main() {
  for (const n of SIZES) if (!existsSync(join(WORK, String(n), 'kong.yaml'))) throw new Error(`no workload for N=${n}: run node gen.mjs ${n}`);
  // Warm the page cache for both binaries and workloads (untimed), then the offline rows.
  for (const n of SIZES) for (const tool of ['deck', 'agentform']) await offline(n).validate[tool]();
  for (const scenario of ['bare', 'startup', 'validate']) {
    for (const n of scenario === 'validate' ? SIZES : [0]) {
      const run = offline(n || SIZES[0])[scenario];
      const runs = { deck: [], agentform: [] };
      for (let rep = 0; rep < REPS; rep++) {
        const order = rep % 2 === 0 ? ['deck', 'agentform'] : ['agentform', 'deck'];
        for (const tool of order) runs[tool].push(await run[tool]());
      }
      for (const tool of ['deck', 'agentform']) record(n, 0, scenario, tool, runs[tool]);
    }
  }
  save();
  for (const n of SIZES) {
    for (const latency of LATENCIES) {
      // (a) sync/apply from empty: fresh servers for every repetition; the last pair stays up.
      const sync = { deck: [], agentform: [] };
      let servers;
      for (let rep = 0; rep < REPS; rep++) {
        servers = await startServers(latency);
        await sleep(300);
        const run = runners(n, servers).sync;
        const order = rep % 2 === 0 ? ['deck', 'agentform'] : ['agentform', 'deck'];
        for (const tool of order) sync[tool].push(await run[tool]());
        if (rep < REPS - 1) await stopServers(servers);
      }
      for (const tool of ['deck', 'agentform']) record(n, latency, 'sync', tool, sync[tool]);
      // (b) no changes and (c) 10 % changed, against the state the last sync left.
      for (const scenario of ['nochange', 'changed']) {
        const run = runners(n, servers)[scenario];
        const runs = { deck: [], agentform: [] };
        for (let rep = 0; rep < REPS; rep++) {
          const order = rep % 2 === 0 ? ['deck', 'agentform'] : ['agentform', 'deck'];
          for (const tool of order) runs[tool].push(await run[tool]());
        }
        for (const tool of ['deck', 'agentform']) record(n, latency, scenario, tool, runs[tool]);
      }
      await stopServers(servers);
      save();
    }
  }
  save();
}

const cleanup = async () => {
  for (const handle of [...started]) await stopProcess(handle);
};
process.on('SIGINT', () => cleanup().then(() => process.exit(130)));
process.on('SIGTERM', () => cleanup().then(() => process.exit(143)));
main()
  .then(cleanup)
  .catch(async (error) => {
    console.error(error.stack ?? error);
    await cleanup();
    process.exitCode = 1;
  });
