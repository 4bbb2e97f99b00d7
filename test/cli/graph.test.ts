// `agentform graph` (offline): every reference of an agent definition is an edge, the connections
// named in tools[] included, so apply writes what an agent calls before the agent.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeProject } from '../config/helpers.js';

const PROJECT = {
  'agents.yaml': `kind: Agent
name: helper
spec:
  model: {provider: openai, model: gpt-4o}
  system: You help.
  tools: [{type: builtin, name: current_time}, {type: connection, name: everything}]
`,
  'platform.yaml': `kind: Provider
name: openai
spec:
  type: openai
---
kind: Connection
name: everything
spec:
  auth: {type: svc-signed}
`,
};

describe('agentform graph', () => {
  it('draws the agent → connection edge of a tools[] connection', async () => {
    const dir = writeProject(PROJECT);
    const json = await runCli(['graph', dir, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toContainEqual({ address: 'agent/helper', dependsOn: ['provider/openai', 'connection/everything'] });
    const dot = await runCli(['graph', dir, '--format', 'dot']);
    expect(dot.code, dot.stderr).toBe(0);
    const id = (address: string) => new RegExp(`(n\\d+) \\[label="${address}"`).exec(dot.stdout)?.[1];
    expect(dot.stdout).toContain(`${id('agent/helper')} -> ${id('connection/everything')};`);
  });
});
