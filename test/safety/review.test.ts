// reviewEnvironment's `capabilityChanges: false` (apply): the same findings, notes and counts as
// the full review, without the before → after capability diff that only plan prints.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { desiredStateFor, loadProject } from '../../src/config/index.js';
import { computePlan } from '../../src/engine/plan.js';
import type { ActualState } from '../../src/model/resources.js';
import { reviewEnvironment } from '../../src/safety/review.js';
import { REPO } from '../helpers/cli.js';

const FIXTURE = join(REPO, 'test', 'fixtures', 'safety', 'project');

describe('reviewEnvironment with and without the capability diff', () => {
  it('leaves out only capabilityChanges: every finding (with its location), note and count is the same', async () => {
    // The support agent without its hook: a policy error (destructive tools with no decision).
    const dir = await mkdtemp(join(tmpdir(), 'agentform-review-'));
    await cp(FIXTURE, dir, { recursive: true });
    const agents = await readFile(join(dir, 'agents.yaml'), 'utf8');
    await writeFile(join(dir, 'agents.yaml'), agents.replace('      hook:\n        connection: github\n', ''));
    const project = await loadProject(dir);
    const desired = desiredStateFor(project, 'prod', { ...process.env, GITHUB_TOKEN: 'x', OPENAI_API_KEY: 'x' });
    // Everything to create: the diff is not empty, so leaving it out is visible.
    const actual: ActualState = { environmentSlug: desired.target.slug, resources: [], missingOperations: [] };
    const plan = computePlan(desired, actual, { prune: false });
    const full = reviewEnvironment({ project, desired, actual, plan, cwd: dir });
    const lean = reviewEnvironment({ project, desired, actual, plan, cwd: dir, capabilityChanges: false });
    expect(full.capabilityChanges?.length).toBeGreaterThan(0);
    expect(lean.capabilityChanges).toBeUndefined();
    const { capabilityChanges, ...rest } = full;
    expect(capabilityChanges).toBeDefined();
    expect(JSON.parse(JSON.stringify(lean))).toEqual(JSON.parse(JSON.stringify(rest)));
    expect(lean.counts.errors).toBeGreaterThan(0);
    expect(lean.findings.every((finding) => finding.location !== undefined)).toBe(true);
  });
});
