// Micro-benchmark: plan 10,000 agents (half unchanged, a quarter with a changed prompt, a quarter
// new) against as many remote agents. Run: npx tsc -p . && node dist/bench/engine.js
import { computePlan } from '../src/engine/plan.js';
import { fingerprint } from '../src/engine/canonical.js';
import type { ActualResource, DesiredResource, JsonObject } from '../src/model/resources.js';

const COUNT = 10_000;

function definition(index: number, prompt: string): JsonObject {
  return {
    name: `Agent ${index}`,
    model: { provider: 'openai', model: 'gpt-4o', fallback: { on: ['unavailable'], models: [{ provider: 'anthropic', model: 'claude' }] } },
    system: prompt,
    tools: [
      { type: 'builtin', name: 'current_time' },
      { type: 'builtin', name: 'search' },
    ],
    policies: { toolCalls: { default: 'allow', byTool: { search: 'allow' } } },
    limits: { maxTurns: 20 },
    sandbox: { tools: { allow: ['read', 'grep', 'ls'] } },
  };
}

const prompt = (index: number, version: string) => `You are agent ${index}.\nBe helpful.\nVersion ${version}.\n`;
const desired: DesiredResource[] = [];
const actual: ActualResource[] = [];
for (let i = 0; i < COUNT; i++) {
  desired.push({
    kind: 'agent',
    name: `agent-${i}`,
    spec: definition(i, prompt(i, 'new')),
    writeOnly: {},
    references: i % 10 === 0 || i === 0 ? [] : [{ kind: 'agent', name: `agent-${i - (i % 10)}`, path: 'subagents[0].agent' }],
  });
  if (i < COUNT * 0.75) {
    const spec = definition(i, prompt(i, i < COUNT / 2 ? 'new' : 'old'));
    const remote = { agentId: `id-${i}`, slug: `agent-${i}`, version: 1, definition: { ...spec, description: '', toolLoading: { mode: 'eager' } } };
    actual.push({ kind: 'agent', name: `agent-${i}`, id: `id-${i}`, spec: remote.definition, remote, fingerprint: fingerprint(remote) });
  }
}
const state = { projectDir: '.', target: { name: 'bench', slug: 'bench', url: 'local', prune: false }, resources: desired };
const actualState = { environmentSlug: 'bench', resources: actual, missingOperations: [] };

computePlan(state, actualState, { prune: false }); // warm-up
const runs = 5;
const times: number[] = [];
let summary;
for (let run = 0; run < runs; run++) {
  const start = process.cpuUsage();
  summary = computePlan(state, actualState, { prune: false }).summary;
  const used = process.cpuUsage(start);
  times.push((used.user + used.system) / 1000);
}
times.sort((a, b) => a - b);
console.log(
  `computePlan, ${COUNT} agents: median ${times[Math.floor(runs / 2)]!.toFixed(1)} ms CPU (min ${times[0]!.toFixed(1)}, max ${times[runs - 1]!.toFixed(1)}); ${JSON.stringify(summary)}`,
);
