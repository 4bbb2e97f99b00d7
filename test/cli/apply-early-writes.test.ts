// apply without a question to ask (--auto-approve, a saved plan) sends its first writes before the
// plan text is printed, and prints it while they are on the wire (issue 17). What the user sees is
// unchanged: the plan text first, whole and in order, then the progress lines; a refusal before
// any write still prints the plan first and writes nothing; a failure while printing (the plan
// text, or the log lines) stops new writes and reports
// the ones already made.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { finishApply } from '../../src/cli/commands/apply/finish.js';
import { openSession, runContext } from '../../src/pipeline/session.js';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';

const planes: LocalControlPlane[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const plane of planes.splice(0)) await plane.close();
});

async function startPlane(): Promise<{ plane: LocalControlPlane; env: NodeJS.ProcessEnv }> {
  const plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-early-plane-')), environments: ['dev'] });
  planes.push(plane);
  return { plane, env: { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev as string } };
}

/** A project of `agents` agents on one provider: many batches of plan text (25 changes a batch). */
async function project(agents: number, secret = '${env:EARLY_SECRET:-sk-test}'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agentform-early-'));
  await writeFile(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
  await writeFile(join(dir, 'providers.yaml'), `kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${secret}\n`);
  await mkdir(join(dir, 'agents'));
  const documents = Array.from(
    { length: agents },
    (_, index) =>
      `kind: Agent\nname: agent-${index}\nspec:\n  model: {provider: main, model: gpt-4o}\n  system: You are agent ${index}.\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n`,
  );
  await writeFile(join(dir, 'agents', 'agents.yaml'), documents.join('---\n'));
  return dir;
}

/** A project of `agents` agents, a fresh plane, and the project's plan saved to plan.json (`file`). */
async function savedPlan(agents: number): Promise<{ dir: string; env: NodeJS.ProcessEnv; file: string }> {
  const dir = await project(agents);
  const { env } = await startPlane();
  const file = join(dir, 'plan.json');
  expect((await runCli(['plan', dir, '-e', 'dev', '--out', file], { env })).code).toBe(0);
  return { dir, env, file };
}

const writes = (stderr: string) => calledRpcs(stderr).filter((rpc) => !READ_RPC.test(rpc));
/** The plan text: stdout up to and including the `Plan: ...` line. */
function planPart(stdout: string): string {
  const end = stdout.indexOf('\n', stdout.search(/^Plan: /m));
  return stdout.slice(0, end + 1);
}

describe('apply --auto-approve: writes start before the plan text is out, the output does not change', () => {
  it('prints the plan text whole (as plan prints it), then every progress line after it', async () => {
    const dir = await project(250);
    const { env } = await startPlane();
    const planned = await runCli(['plan', dir, '-e', 'dev'], { env });
    expect(planned.code, planned.stderr).toBe(0);
    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--parallelism', '16'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const text = planPart(applied.stdout);
    expect(text).toBe(planPart(planned.stdout));
    expect(text).toContain('Plan: 251 to add, 0 to change, 0 to replace, 0 to destroy.');
    expect(text).not.toMatch(/Creating|Created/);
    const rest = applied.stdout.slice(text.length).trimEnd().split('\n');
    expect(rest.filter((line) => line.endsWith(': Creating...'))).toHaveLength(251);
    expect(rest.filter((line) => / Created after \d+m?s/.test(line))).toHaveLength(251);
    expect(rest.at(-1)).toMatch(/^Apply complete! Resources: 251 added, 0 changed, 0 replaced, 0 destroyed\. Total time: \d+(ms|\.\ds)\.$/);
    // Each change starts before it ends, in the one ordered stream.
    for (const address of ['provider/main', ...Array.from({ length: 250 }, (_, index) => `agent/agent-${index}`)]) {
      expect(rest.indexOf(`${address}: Creating...`)).toBeLessThan(rest.findIndex((line) => line.startsWith(`${address}: Created after`)));
    }
  }, 60_000);

  it('a saved plan prints the same text first', async () => {
    const { dir, env, file } = await savedPlan(120);
    const planned = await runCli(['plan', dir, '-e', 'dev'], { env });
    const applied = await runCli(['apply', file], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(planPart(applied.stdout)).toBe(planPart(planned.stdout));
    expect(planPart(applied.stdout)).not.toMatch(/Creating|Created/);
  }, 60_000);

  it('a preflight refusal still prints the plan text first, exits 1 and writes nothing', async () => {
    const dir = await project(150, '${env:EARLY_MISSING_SECRET}');
    const { env } = await startPlane();
    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--debug'], { env });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('Plan: 151 to add, 0 to change, 0 to replace, 0 to destroy.');
    expect(applied.stdout).not.toMatch(/Creating|Created/);
    expect(applied.stderr).toContain('refusing to apply: 1 problem found before any write (nothing was changed)');
    expect(writes(applied.stderr)).toEqual([]);
    const fresh = await runCli(['plan', dir, '-e', 'dev', '--json'], { env: { ...env, EARLY_MISSING_SECRET: 'x' } });
    expect(JSON.parse(fresh.stdout).summary.add).toBe(151);
  }, 60_000);
});

describe('a failure to print stops new writes', () => {
  it.each([
    // The second batch of plan text cannot be written: by then the first writes are on the wire.
    { what: 'the plan', failsAt: (text: string) => text.includes('agent/agent-150 ') },
    // The first "Created" line: the plan text is out.
    { what: 'the log', failsAt: (text: string) => / Created after /.test(text) },
  ])(
    'printing $what: lets the writes in flight finish, reports them, then fails',
    async ({ what, failsAt }) => {
      const dir = await project(300);
      const { plane } = await startPlane();
      const printed: string[] = [];
      let failed = false;
      vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array) => {
        const text = String(chunk);
        if (!failed && failsAt(text)) {
          failed = true;
          throw new Error('stdout is gone');
        }
        printed.push(text);
        return true;
      }) as typeof process.stdout.write);
      const session = await openSession({ dir, environment: 'dev' }, runContext({}, { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev }));
      let error: unknown;
      try {
        await finishApply(
          session,
          { saved: undefined, inputs: {}, parallelism: 4, maxRequestBytes: undefined },
          { autoApprove: true, parallelism: '4' },
          { color: false },
        );
      } catch (caught) {
        error = caught;
      } finally {
        await session.close();
      }
      vi.restoreAllMocks();
      expect(failed).toBe(true);
      expect((error as Error).message).toBe('stdout is gone');
      const output = printed.join('');
      // The summary says what was done and that the rest was not started, and why.
      expect(output).toContain(`Stopped: printing ${what} failed (stdout is gone), so nothing more was started.`);
      const added = Number(/Apply incomplete\. Resources: (\d+) added/.exec(output)?.[1]);
      expect(added).toBeGreaterThan(0);
      expect(added).toBeLessThan(301);
      // Every write reported done is on the server; nothing else was written.
      const section = (title: string) => {
        const lines = output.slice(output.indexOf(`\n${title}\n`) + title.length + 2).split('\n');
        return lines.slice(
          0,
          lines.findIndex((line) => !line.startsWith('  ')),
        );
      };
      const notStarted = section('Not started:').length;
      expect(section('Done:')).toHaveLength(added);
      expect(added + notStarted).toBe(301);
      const check = await openSession({ dir, environment: 'dev' }, runContext({}, { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev }));
      try {
        const live = await check.client.call('agents.list', {});
        expect(live.length + 1).toBe(added);
      } finally {
        await check.close();
      }
    },
    60_000,
  );
});

describe('apply without a question to ask opens the connections of its writes while the reads are on the wire', () => {
  const PRECONNECT = /topping the connections up to (\d+) ahead of the writes: opened (\d+)/;

  it('tops the pool up to --parallelism before the first write; an apply that asks first does not', async () => {
    const dir = await project(40);
    const { env } = await startPlane();
    const asked = await runCli(['apply', dir, '-e', 'dev', '--parallelism', '12', '--debug'], { env, input: 'no\n' });
    expect(asked.code, asked.stderr).not.toBe(0);
    expect(calledRpcs(asked.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expect(asked.stderr).not.toMatch(PRECONNECT);

    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--parallelism', '12', '--debug'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const line = PRECONNECT.exec(applied.stderr);
    expect(line, applied.stderr).not.toBeNull();
    expect(line![1]).toBe('12');
    // The reads (8 kinds, 8 at once) have connections of their own: those count toward the 12.
    expect(Number(line![2])).toBeGreaterThanOrEqual(4);
    const firstWrite = applied.stderr.search(/→ POST \S+ \((providers|agents)\.(create|upsert), attempt/);
    expect(firstWrite).toBeGreaterThan(line!.index);
    expect(applied.stdout).toContain('41 added');
  }, 60_000);

  it('a saved plan tops them up to its own number of writes when that is below --parallelism, and opens none without writes', async () => {
    const { dir, env, file } = await savedPlan(9);
    const applied = await runCli(['apply', file, '--parallelism', '12', '--debug'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('10 added');
    expect(PRECONNECT.exec(applied.stderr)?.[1], applied.stderr).toBe('10');

    const empty = join(dir, 'empty.json');
    expect((await runCli(['plan', dir, '-e', 'dev', '--out', empty], { env })).code).toBe(0);
    const none = await runCli(['apply', empty, '--parallelism', '12', '--debug'], { env });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).not.toMatch(PRECONNECT);
  }, 60_000);
});
