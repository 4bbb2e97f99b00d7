// Quick durability: SIGINT lets in-flight requests finish, starts nothing new, reports what was done
// and exits 130; SIGTERM ends the run as killed once its queued log lines are out; SIGTERM or
// SIGKILL at a seeded point followed by a re-run converges. Many seeds: interrupt.stress.test.ts.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, generateProject, leftoverTempFiles, startPlane } from './harness.js';
import { interruptScenario } from './scenarios.js';

const SHAPE = { agents: 30, providers: 3, connections: 2, secrets: 4, apiKeys: 2 };

describe('interrupting apply', () => {
  it.each([1, 2, 3])(
    'SIGINT, seed %i: exits 130 with exactly what it reported done, and a re-run converges',
    async (seed) => {
      const outcome = await interruptScenario(seed, 'SIGINT', SHAPE);
      console.log(`SIGINT seed ${seed}: ${JSON.stringify(outcome)}`);
      expect(outcome.reruns).toBe(1);
    },
    60_000,
  );

  it.each([1, 2, 3])(
    'SIGTERM, seed %i: ends as killed with its queued log lines out, and a re-run converges',
    async (seed) => {
      const outcome = await interruptScenario(seed, 'SIGTERM', SHAPE);
      console.log(`SIGTERM seed ${seed}: ${JSON.stringify(outcome)}`);
      expect(outcome.reruns).toBe(1);
    },
    60_000,
  );

  it.each([1, 2, 3])(
    'SIGKILL, seed %i: a re-run converges with nothing duplicated',
    async (seed) => {
      const outcome = await interruptScenario(seed, 'SIGKILL', SHAPE);
      console.log(`SIGKILL seed ${seed}: ${JSON.stringify(outcome)}`);
      expect(outcome.reruns).toBe(1);
    },
    60_000,
  );
});

describe('after a killed apply', () => {
  it('apply removes the token temporary file the killed run left, even when that token is never written again', async () => {
    // Regression (CI, seed 100): SIGKILL between writing a token's temporary file and renaming it.
    const plane = await startPlane();
    try {
      const project = await generateProject({ agents: 2, providers: 1, connections: 1, secrets: 1, apiKeys: 1 }, 'stale-token');
      const tokens = join(project.dir, '.agentform', 'tokens');
      await mkdir(tokens, { recursive: true });
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      const stale = join(tokens, `.key0.token.${dead}.00ff00ff00ff.tmp`);
      await writeFile(stale, 'svc_dev_half', { mode: 0o600 });
      const first = await apply(project, plane);
      expect(first.code, first.stderr).toBe(0);
      expect(await leftoverTempFiles(project.dir)).toEqual([]);
      // Again with nothing to do (the key exists, so its token file is not rewritten).
      await writeFile(stale, 'svc_dev_half', { mode: 0o600 });
      const second = await apply(project, plane);
      expect(second.code, second.stderr).toBe(0);
      expect(await leftoverTempFiles(project.dir)).toEqual([]);
    } finally {
      await plane.close();
    }
  }, 60_000);
});
