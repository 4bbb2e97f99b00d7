// Names of the environment variables an exported project reads its write-only values from.
// Pure; names are made unique within one export.

/** `crm-tools` → `CRM_TOOLS`: upper case, anything outside [A-Z0-9_] becomes `_`. */
export function envVarPart(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

export interface EnvVarNeed {
  name: string;
  /** What it is for, e.g. `the value of secret npm-token`. */
  purpose: string;
}

/** Hands out environment variable names, never the same one twice. */
export class EnvVarNames {
  private readonly taken = new Map<string, EnvVarNeed>();

  /** The first free name among the candidates (the last one gets a numeric suffix if needed). */
  claim(candidates: string[], purpose: string): string {
    let name = candidates.find((candidate) => !this.taken.has(candidate));
    if (name === undefined) {
      const last = candidates[candidates.length - 1] as string;
      let suffix = 2;
      while (this.taken.has(`${last}_${suffix}`)) suffix++;
      name = `${last}_${suffix}`;
    }
    this.taken.set(name, { name, purpose });
    return name;
  }

  list(): EnvVarNeed[] {
    return [...this.taken.values()];
  }
}
