// The files of a new project (`agentform init`): one local environment, one agent and its prompt,
// the schemas and editor settings, `.gitignore` for local state. Pure: the command writes them.
import { schemaFiles, schemaModeline, vscodeSettings, type ProjectFile } from './editor-support.js';

export const INIT_AGENT = 'assistant';

const ROOT = `${schemaModeline('agentform.schema.json', 'agentform.yaml')}
# An agentform project. Docs: agentform --help, and the README of the agentform package.
version: 1
environments:
  dev:
    url: local   # the local control plane, data in .agentform/local (git-ignored)
    # prune: true    # also delete what is no longer declared here
  # staging:
  #   url: https://control.example.com
  #   token: \${env:AGENTFORM_TOKEN_STAGING}
defaultEnvironment: dev
`;

const PROVIDER = `${schemaModeline('provider.schema.json', 'providers.yaml')}
kind: Provider
name: openai
spec:
  type: openai
  # Write-only: read from the environment when apply sends it, never written in a file.
  secret: \${env:OPENAI_API_KEY}
`;

const AGENT = `${schemaModeline('agent.schema.json', `agents/${INIT_AGENT}.yaml`)}
kind: Agent
name: ${INIT_AGENT}
spec:
  description: A first agent; edit me.
  model:
    provider: openai
    model: gpt-4o-mini
  system: \${file:../prompts/${INIT_AGENT}.md}
  tools:
    - type: builtin
      name: current_time
  policies: {}
  limits:
    maxTurns: 10
`;

const PROMPT = `You are a helpful assistant. Answer briefly and say when you are unsure.
`;

/** The line `.gitignore` needs: local control plane data and API key tokens stay out of Git. */
export const GITIGNORE_LINE = '.agentform/';

export function scaffoldFiles(): ProjectFile[] {
  return [
    { path: 'agentform.yaml', content: ROOT },
    { path: 'providers.yaml', content: PROVIDER },
    { path: `agents/${INIT_AGENT}.yaml`, content: AGENT },
    { path: `prompts/${INIT_AGENT}.md`, content: PROMPT },
    ...schemaFiles(),
    vscodeSettings(),
  ];
}
