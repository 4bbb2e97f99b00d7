// agentform export: the live state of one environment as the files of a project (pure; the CLI
// command reads the state and writes the files).
export {
  exportEnvironment,
  environmentNameFor,
  type ExportInput,
  type ExportResult,
  type ExportSchemas,
  type ExportTarget,
  type ExportedFile,
} from './project.js';
export type { EnvVarNeed } from './env-names.js';
export { exportableSpec, type SchemaRef, type SpecSchema } from './prune.js';
