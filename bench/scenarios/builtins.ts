// Which of Node's own modules a warm plan of 20 agents loads, against bare `node -e 0`. A warm run
// needs neither node:crypto (the caches compare texts, request ids come from Math.random) nor
// node:http (the client speaks HTTP/1.1 over node:net): loading them shows up here, not as a
// failed test, since which built-ins load is Node's business as much as ours.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Figure, Scenario } from '../figures.js';
import { writeProject } from '../lib/generate.js';
import { CLI } from '../lib/run-cli.js';
import { withServerProcess } from '../lib/server-process.js';

const SCENARIO = 'built-in modules: warm plan of 20 agents';

/** Node's internal modules loaded by `node --require <hook> ...args`, read from process.moduleLoadList at exit. */
function modulesLoaded(dir: string, args: string[], env: NodeJS.ProcessEnv): string[] {
  const report = join(dir, 'modules.json');
  const hook = join(dir, 'hook.cjs');
  writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(process.moduleLoadList)));\n`);
  const result = spawnSync(process.execPath, ['--require', hook, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return (JSON.parse(readFileSync(report, 'utf8')) as string[]).filter((name) => name.startsWith('NativeModule '));
}

const count = (metric: string, value: number): Figure => ({ scenario: SCENARIO, metric, value, unit: 'modules', budget: null, lowerBound: null });

export const builtins: Scenario = {
  name: 'built-in modules',
  async run(): Promise<Figure[]> {
    const scratch = mkdtempSync(join(tmpdir(), 'agentform-bench-builtins-'));
    const project = writeProject({ agents: 20, connections: 5, providers: 2 });
    try {
      return await withServerProcess('agentform-bench-builtins-', async (server) => {
        const env = { AGENTFORM_URL_BENCH: server.url, AGENTFORM_TOKEN_BENCH: server.token, AGENTFORM_PARSE_CACHE: join(scratch, 'parse-cache') };
        const apply = spawnSync(process.execPath, [CLI, 'apply', project, '--auto-approve'], {
          env: { PATH: process.env.PATH ?? '', ...env },
          encoding: 'utf8',
        });
        if (apply.status !== 0) throw new Error(`apply exited ${apply.status}: ${apply.stderr}`);
        modulesLoaded(scratch, [CLI, 'plan', project], env); // warms the parse cache
        const bare = modulesLoaded(scratch, ['-e', '0'], {});
        const plan = modulesLoaded(scratch, [CLI, 'plan', project], env);
        const among = (pattern: RegExp) => plan.filter((name) => pattern.test(name)).length;
        return [
          count('bare node -e 0', bare.length),
          count('warm plan, over bare node', plan.length - bare.length),
          count('of them crypto (expected 0)', among(/crypto/)),
          count('of them node:http (expected 0)', among(/^NativeModule (_?http|internal\/http)/)),
        ];
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      rmSync(project, { recursive: true, force: true });
    }
  },
};
