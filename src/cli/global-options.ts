import { Option, type Command } from 'commander';

/** Options every command accepts. Commands read them with `command.optsWithGlobals()`. */
export interface GlobalOptions {
  url?: string;
  token?: string;
  debug?: boolean;
  color?: boolean;
  insecureHttp?: boolean;
}

export function addGlobalOptions(program: Command): void {
  program
    .addOption(new Option('--url <url>', 'base URL of the Control API, or "local" (beats AGENTFORM_URL)'))
    .addOption(new Option('--token <key>', 'API key svc_<env>_<secret> (prefer AGENTFORM_TOKEN)'))
    .addOption(new Option('--debug', 'print every request and response, secrets redacted'))
    .addOption(new Option('--no-color', 'never colour the output (NO_COLOR works too)'))
    .addOption(new Option('--insecure-http', 'allow plain http:// to a host that is not loopback'));
}
