// The one off switch for every speed-up that has a plain way to do the same work: the start-up code
// caches (src/startup), the plain YAML parser (config/yaml-plain.ts), the parse cache
// (config/parse-cache.ts) and the local control plane's hand-written HTTP/1.1 server
// (server/http-factory.ts). AGENTFORM_OPTIMIZATIONS=off runs the plain way everywhere: a way out
// should one of them be suspected, and how the tests prove that each can be removed.

/** Whether AGENTFORM_OPTIMIZATIONS turns the speed-ups off (`off`, `0` or `false`). */
export function optimizationsOff(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env.AGENTFORM_OPTIMIZATIONS?.trim().toLowerCase();
  return setting === 'off' || setting === '0' || setting === 'false';
}
