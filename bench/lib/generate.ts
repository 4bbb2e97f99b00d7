// Generates a project of the size a scenario asks for: providers, connections, agents spread over files.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ProjectSize {
  agents: number;
  connections: number;
  providers: number;
  agentsPerFile?: number;
}

function agentDocument(index: number, size: ProjectSize, maxTurns: number): string {
  return `kind: Agent
name: agent-${index}
spec:
  description: Benchmark agent ${index}
  model: {provider: provider-${index % size.providers}, model: gpt-4o}
  system: |
    You are benchmark agent ${index}.
    Answer briefly.
  tools: [{type: builtin, name: current_time}]
  policies:
    toolCalls: {default: allow, hook: {connection: connection-${index % size.connections}}}
  limits: {maxTurns: ${maxTurns}}
`;
}

export function writeProject(size: ProjectSize, environment = 'bench'): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentform-bench-'));
  writeFileSync(join(dir, 'agentform.yaml'), `version: 1\nenvironments:\n  ${environment}:\n    url: http://127.0.0.1:9\n`);
  const platform: string[] = [];
  for (let p = 0; p < size.providers; p++)
    platform.push(`kind: Provider\nname: provider-${p}\nspec:\n  type: openai\n  secret: \${env:BENCH_PROVIDER_SECRET:-placeholder}\n`);
  for (let c = 0; c < size.connections; c++)
    platform.push(`kind: Connection\nname: connection-${c}\nspec:\n  auth: {type: svc-signed}\n  hookEvents: [session.started]\n`);
  writeFileSync(join(dir, 'platform.yaml'), platform.join('---\n'));
  const perFile = size.agentsPerFile ?? 10;
  mkdirSync(join(dir, 'agents'));
  for (let start = 0; start < size.agents; start += perFile) {
    const documents: string[] = [];
    for (let index = start; index < Math.min(size.agents, start + perFile); index++) documents.push(agentDocument(index, size, 20));
    writeFileSync(join(dir, 'agents', `agents-${start / perFile}.yaml`), documents.join('---\n'));
  }
  return dir;
}

/** Rewrites every 1/share-th agent document with `edit`; returns how many were edited. */
export function editAgents(dir: string, size: ProjectSize, share: number, edit: (document: string) => string): number {
  const perFile = size.agentsPerFile ?? 10;
  const step = Math.round(1 / share);
  let changed = 0;
  for (let start = 0; start < size.agents; start += perFile) {
    const file = join(dir, 'agents', `agents-${start / perFile}.yaml`);
    const documents = readFileSync(file, 'utf8')
      .split('---\n')
      .map((document, offset) => {
        if ((start + offset) % step !== 0) return document;
        changed += 1;
        return edit(document);
      });
    writeFileSync(file, documents.join('---\n'));
  }
  return changed;
}

/** Changes `share` of the agents (every 1/share-th one) so a plan has that many updates. */
export function changeAgents(dir: string, size: ProjectSize, share: number): number {
  return editAgents(dir, size, share, (document) => document.replace('maxTurns: 20', 'maxTurns: 21'));
}
