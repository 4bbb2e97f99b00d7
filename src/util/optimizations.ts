// The one off switch for every speed-up that has a plain way to do the same work: the start-up
// settings (src/startup), the plain YAML parser (config/yaml-plain.ts), the parse cache
// (config/parse-cache.ts), apply's log lines batched per turn (cli/turn-batched-lines.ts) and the
// local control plane's group commit (server/store/group-commit.ts).
// AGENTFORM_OPTIMIZATIONS=off runs the plain way everywhere: a way out should one of them be
// suspected, and how the tests prove that each can be removed.

/** Whether AGENTFORM_OPTIMIZATIONS turns the speed-ups off (`off`, `0` or `false`). */
export function optimizationsOff(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env.AGENTFORM_OPTIMIZATIONS?.trim().toLowerCase();
  return setting === 'off' || setting === '0' || setting === 'false';
}
