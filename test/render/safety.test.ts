// Golden output of the safety review: text under a plan, and Markdown for a pull request.
// The expected files are test/fixtures/safety/review.{txt,md}; UPDATE_GOLDEN=1 rewrites them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeCapabilities } from '../../src/engine/capabilities.js';
import { diffCapabilities } from '../../src/engine/capability-diff.js';
import { evaluatePolicy } from '../../src/engine/policy/index.js';
import type { JsonObject } from '../../src/model/resources.js';
import type { SafetyReview } from '../../src/model/safety.js';
import {
  capabilityChangeText,
  renderFindingAnnotations,
  renderFindingsText,
  renderSafetyMarkdown,
  renderSafetyText,
  safetyToJson,
} from '../../src/render/safety.js';
import type { Finding } from '../../src/model/safety.js';
import { desired } from '../engine/builders.js';
import { environmentWith, GITHUB_SURFACE, goodAgent } from '../engine/policy/builders.js';

const GOLDEN = new URL('../fixtures/safety/', import.meta.url);

function golden(name: string, actual: string): void {
  const file = new URL(name, GOLDEN);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  expect(existsSync(file), `${name} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

function sampleReview(): SafetyReview {
  const surfaces = { github: GITHUB_SURFACE };
  const supportBefore: JsonObject = goodAgent({
    tools: [{ type: 'connection', name: 'github' }],
    subagents: [{ kind: 'agent', name: 'r', agent: 'researcher' }],
  });
  const supportAfter: JsonObject = goodAgent({
    tools: [
      { type: 'connection', name: 'github' },
      { type: 'connection', name: 'jira' },
    ],
    policies: {
      toolCalls: { hook: { connection: 'gate' }, byTool: { delete_repo: 'allow' }, onError: 'deny', onTimeout: 'deny' },
      decisions: { onExpire: 'deny' },
    },
    subagents: [{ kind: 'agent', name: 'r', agent: 'researcher' }],
    subagentPolicy: { selfDelegation: false, maxDepth: 1 },
  });
  const researcher = goodAgent({ tools: [{ type: 'builtin', name: 'current_time' }], limits: { maxTurns: 5 } });
  const before = computeCapabilities(
    [
      { name: 'support', spec: supportBefore },
      { name: 'researcher', spec: researcher },
      { name: 'old', spec: goodAgent() },
    ],
    surfaces,
  );
  const after = computeCapabilities(
    [
      { name: 'support', spec: supportAfter },
      { name: 'researcher', spec: researcher },
    ],
    surfaces,
  );
  const input = environmentWith([desired('agent', 'support', supportAfter), desired('agent', 'researcher', researcher)], { kind: 'production' });
  const findings = evaluatePolicy(
    { ...input, surfaces },
    { severities: {}, custom: [], suppressions: { 'agent/researcher': [{ rule: 'limits-missing', reason: 'bounded | by its caller' }] } },
  ).map((finding, index) => ({
    ...finding,
    location: { file: `agents/${finding.address.split('/')[1]}.yaml`, line: 10 + index, col: 3 },
  }));
  return {
    environment: 'production',
    environmentKind: 'production',
    findings,
    capabilityChanges: diffCapabilities(before, after),
    notes: ['tools of connection jira unknown (there is no agentform.lock.yaml): treated as destructive; run agentform lock -e production'],
    counts: {
      errors: findings.filter((f) => f.severity === 'error' && !f.suppressed).length,
      warnings: 0,
      suppressed: findings.filter((f) => f.suppressed).length,
    },
  };
}

describe('safety review rendering', () => {
  it('text (golden)', () => golden('review.txt', `${renderSafetyText(sampleReview())}\n`));
  it('Markdown with a capability table per changed agent (golden)', () => golden('review.md', `${renderSafetyMarkdown(sampleReview())}\n`));

  it('says a destructive tool now runs without a decision in the words of the issue', () => {
    expect(capabilityChangeText({ change: 'added', tool: 'github.delete_repo', via: [], after: { decision: 'allowed', effect: 'destructive' } })).toBe(
      '+ github.delete_repo (destructive) now runs without a decision',
    );
  });

  it('GitHub annotations: located, escaped, suppressed findings left out', () => {
    const lines = renderFindingAnnotations(sampleReview());
    expect(lines.length).toBe(sampleReview().counts.errors);
    expect(lines[0]).toMatch(/^::error file=agents\/support\.yaml,line=\d+,col=3::\[/);
  });

  it('JSON carries paths as text and suppression reasons', () => {
    const json = safetyToJson(sampleReview()) as { findings: Array<{ path: string; suppressed?: { reason: string } }> };
    expect(json.findings.some((finding) => finding.suppressed?.reason === 'bounded | by its caller')).toBe(true);
    expect(json.findings.map((finding) => finding.path)).toContain('policies.toolCalls');
  });
});

describe('many findings of one rule in text', () => {
  const finding = (rule: string, severity: 'error' | 'warning', index: number): Finding => ({
    rule,
    severity,
    address: `agent/a${index}`,
    path: [],
    message: `${rule} ${index}`,
  });
  const review = (findings: Finding[]): SafetyReview => ({
    environment: 'dev',
    findings,
    notes: [],
    counts: { errors: findings.filter((f) => f.severity === 'error').length, warnings: findings.filter((f) => f.severity === 'warning').length, suppressed: 0 },
  });

  it('folds more than 10 warnings of a rule to the first 5 and a count; JSON keeps every one', () => {
    const warnings = Array.from({ length: 12 }, (_, index) => finding('limits-missing', 'warning', index));
    const lines = renderFindingsText(review([...warnings, finding('other', 'warning', 99)]));
    expect(lines.filter((line) => line.includes('[limits-missing] agent/'))).toHaveLength(5);
    expect(lines).toContain('… and 7 more warnings [limits-missing] (all of them: --json)');
    expect(lines.some((line) => line.includes('[other] agent/a99'))).toBe(true);
    expect(lines.at(-1)).toBe('Policy: 0 errors, 13 warnings (environment dev).');
    expect(safetyToJson(review(warnings)).findings).toHaveLength(12);
  });

  it('lists 10 warnings of a rule in full, and never folds errors', () => {
    expect(
      renderFindingsText(review(Array.from({ length: 10 }, (_, index) => finding('limits-missing', 'warning', index)))).filter((line) =>
        line.includes('[limits-missing]'),
      ),
    ).toHaveLength(10);
    const errors = renderFindingsText(review(Array.from({ length: 30 }, (_, index) => finding('destructive-tool-without-decision', 'error', index))));
    expect(errors.filter((line) => line.includes('error [destructive-tool-without-decision]'))).toHaveLength(30);
    expect(errors.some((line) => line.startsWith('…'))).toBe(false);
  });
});

describe('identity changes', () => {
  const reach = { identity: 'user:alice', connection: 'github', via: ['researcher'], grant: 'github:user:alice', tools: ['github.search'] };
  const review: SafetyReview = {
    environment: 'prod',
    findings: [],
    notes: [],
    counts: { errors: 0, warnings: 0, suppressed: 0 },
    capabilityChanges: [],
    identityChanges: [
      {
        agent: 'support',
        changes: [
          { change: 'added', reach },
          { change: 'removed', reach: { identity: 'anonymous', connection: 'crm', via: [], tools: ['crm.*'] } },
        ],
        reach: [reach],
      },
    ],
  };

  it('text: one line per change, the chain, the grant or the connection credential', () => {
    expect(renderSafetyText(review).split('\n').slice(0, 4)).toEqual([
      'Capabilities: unchanged.',
      '',
      'Identity changes (who reaches which connection, through which grant):',
      '  support: + user:alice now reaches researcher › github (1 tool) through grant github:user:alice',
    ]);
    expect(renderSafetyText(review)).toContain(
      "  support: - anonymous no longer reaches crm (tools unknown) through the connection's own credential (identity not required)",
    );
  });

  it('a changed admission: the same identity, its note before and after, flagged when it gains one', () => {
    const noted = { ...reach, note: "scope user is not in support's identity.scopesAllowed [team]: assumed admitted (not shown)" };
    const changed = (before: typeof reach, after: typeof reach): SafetyReview => ({
      ...review,
      identityChanges: [{ agent: 'support', changes: [{ change: 'changed', before, reach: after }], reach: [after] }],
    });
    expect(renderSafetyText(changed(reach, noted))).toContain(
      `  support: ~ user:alice still reaches researcher › github (1 tool) through grant github:user:alice; note now: ${noted.note} (was: none)`,
    );
    expect(renderSafetyMarkdown(changed(reach, noted))).toContain('- ✏️ ⚠️ user:alice still reaches researcher › github (1 tool)');
    expect(renderSafetyMarkdown(changed(noted, reach))).toContain(
      `- ✏️ user:alice still reaches researcher › github (1 tool) through grant github:user:alice; note now: none (was: ${noted.note})`,
    );
    const regranted = { ...reach, grant: 'github:user:alice-2' };
    expect(renderSafetyText(changed(reach, regranted))).toContain(
      '~ user:alice still reaches researcher › github (1 tool) through grant github:user:alice-2; was through grant github:user:alice',
    );
  });

  it('Markdown: a section per agent; none when nothing changes', () => {
    expect(renderSafetyMarkdown(review)).toContain('#### Identity changes\n\n**`support`**\n\n- ➕ ⚠️ user:alice now reaches researcher › github (1 tool)');
    expect(renderSafetyMarkdown({ ...review, identityChanges: [] })).not.toContain('Identity changes');
    expect(renderSafetyText({ ...review, identityChanges: [] })).not.toContain('Identity changes');
  });
});
