// The same project as generate.ts, written as a templated fleet: three AgentTemplates in a chain
// and agents that only pass parameters. The merged agents equal generate.ts's agent for agent, so
// the peer benchmark compares the cost of templates alone
// (AF_GENERATE=dist/bench/lib/generate-templated.js, or PEER_FLEET=templated under `npm run bench`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { editAgents, type ProjectSize, writeProject as writePlainProject } from './generate.js';

const TEMPLATES = `kind: AgentTemplate
name: bench-limits
spec:
  limits: {maxTurns: 20}
---
kind: AgentTemplate
name: bench-base
extends: bench-limits
params:
  provider: {description: the agent's model provider}
  connection: {description: the connection whose hook decides tool calls}
spec:
  model: {provider: "\${param:provider}", model: gpt-4o}
  tools: [{type: builtin, name: current_time}]
  policies:
    toolCalls: {default: allow, hook: {connection: "\${param:connection}"}}
---
kind: AgentTemplate
name: bench-agent
extends: bench-base
params:
  index: {description: the agent's number}
spec:
  description: Benchmark agent \${param:index}
  system: |
    You are benchmark agent \${param:index}.
    Answer briefly.
`;

// The line a changed agent gets; changeAgents appends it, as the plain generator edits maxTurns.
const CHANGED_SPEC = 'spec: {limits: {maxTurns: 21}}\n';

function agentDocument(index: number, size: ProjectSize): string {
  return `kind: Agent
name: agent-${index}
extends: bench-agent
params: {index: ${index}, provider: provider-${index % size.providers}, connection: connection-${index % size.connections}}
`;
}

export function writeProject(size: ProjectSize, environment = 'bench'): string {
  const dir = writePlainProject({ ...size, agents: 0 }, environment);
  writeFileSync(join(dir, 'templates.yaml'), TEMPLATES);
  const perFile = size.agentsPerFile ?? 10;
  for (let start = 0; start < size.agents; start += perFile) {
    const documents: string[] = [];
    for (let index = start; index < Math.min(size.agents, start + perFile); index++) documents.push(agentDocument(index, size));
    writeFileSync(join(dir, 'agents', `agents-${start / perFile}.yaml`), documents.join('---\n'));
  }
  return dir;
}

/** Changes `share` of the agents (every 1/share-th one): each gets its own maxTurns over the template's. */
export function changeAgents(dir: string, size: ProjectSize, share: number): number {
  return editAgents(dir, size, share, (document) => `${document}${CHANGED_SPEC}`);
}
