// The options of `agentform graph`, shared by its registration (index.ts) and its run module.

export interface GraphCommandOptions {
  env?: string;
  dir?: string;
  format: 'mermaid' | 'dot';
  json?: boolean;
}
