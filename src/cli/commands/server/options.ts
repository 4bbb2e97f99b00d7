// The options of `agentform server`, shared by its registration (index.ts) and its run module.

export interface ServerOptions {
  port: string;
  host: string;
  data: string;
  environments: string;
  unarchive?: string;
  printKeys?: boolean;
  allowRemote?: boolean;
  latencyMs?: string;
  failRate?: string;
  lostResponseRate?: string;
  throttleRate?: string;
  seed?: string;
  allowRemoteOutbound?: boolean;
  profile?: string;
  devEndpoints?: boolean;
  enforceToolPolicy?: boolean;
  durability: string;
  maxConnections?: string;
}
