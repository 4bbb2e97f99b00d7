// Which HTTP proxy, if any, a request to the Control API goes through: HTTPS_PROXY for https://
// URLs, HTTP_PROXY for http:// ones (either spelling; upper case first, as Go's net/http and so
// decK read them), unless NO_PROXY names the host. Loopback hosts never go through a proxy: the
// local control plane (`agentform server`, `url: local`) must keep working in a CI job whose
// environment sets a proxy for everything else. Pure: the variables are passed in.
import { BlockList, isIP } from 'node:net';
import { UserError } from '../errors.js';
import { portOf, unbracketed } from '../util/host.js';
import { isLoopbackHost } from '../util/loopback.js';
import { firstSet, type Variables } from '../util/variables.js';

export interface ProxyRoute {
  host: string;
  port: number;
  /** `Basic …` from the proxy URL's user and password; sent only to the proxy. */
  authorization?: string;
  /** The proxy's URL without user or password, for messages and traces. */
  label: string;
  /** The variable it came from (`HTTPS_PROXY`). */
  source: string;
}

/** The proxy for `target`, or undefined to connect directly. */
export function proxyFor(target: URL, env: Variables): ProxyRoute | undefined {
  const source = firstSet(env, target.protocol === 'https:' ? ['HTTPS_PROXY', 'https_proxy'] : ['HTTP_PROXY', 'http_proxy']);
  if (source === undefined) return undefined;
  const host = unbracketed(target.hostname).toLowerCase();
  if (isLoopbackHost(host)) return undefined;
  // The first one set and not empty, as for the proxy itself (and as Go reads them).
  const noProxy = firstSet(env, ['NO_PROXY', 'no_proxy']);
  if (noProxy !== undefined && bypasses(env[noProxy]!, host, portOf(target))) return undefined;
  return parseProxyUrl(env[source]!.trim(), source);
}

/** The proxy URL: `http://[user:password@]host[:port]`, the scheme optional (as curl and Go take it). */
export function parseProxyUrl(value: string, source: string): ProxyRoute {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    // Not echoed: the value may hold a password.
    throw new UserError(`${source} is not a proxy URL`, 'expected http://host:port or http://user:password@host:port');
  }
  if (url.protocol !== 'http:') {
    throw new UserError(
      `${source} names a ${url.protocol.replace(/:$/, '')}:// proxy; agentform talks to proxies over http:// only`,
      'give the proxy as http://host:port (requests to an https:// API still go through it encrypted, in a CONNECT tunnel)',
    );
  }
  if (url.hostname === '') throw new UserError(`${source} names no proxy host`, 'expected http://host:port');
  // Anything after host:port means a character of the password was taken for the end of the
  // authority (an unencoded @ / ? #): the host and port parsed are then parts of the credentials,
  // which must not be used, nor shown in a message.
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw new UserError(
      `${source} holds something after the proxy's host and port`,
      'expected http://user:password@host:port, with @ / ? # : in the user or password percent-encoded (%40 %2F %3F %23 %3A)',
    );
  }
  const route: ProxyRoute = { host: unbracketed(url.hostname), port: portOf(url), label: `http://${url.host}`, source };
  if (url.username !== '' || url.password !== '') {
    const credentials = `${decoded(url.username)}:${decoded(url.password)}`;
    route.authorization = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
  }
  return route;
}

/**
 * Whether NO_PROXY names host:port. Entries are separated by commas or spaces: `*` (every host), a
 * host name (itself and its subdomains; with a leading `.` or `*.`, only its subdomains), an IP
 * address or a CIDR block; any of them may end with `:port` to match that port only.
 */
export function bypasses(noProxy: string, host: string, port: number): boolean {
  const hostIp = isIP(host);
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { name, entryPort } = splitPort(entry);
    if (entryPort !== undefined && entryPort !== port) continue;
    if (hostIp !== 0 || isIP(name) !== 0 || name.includes('/')) {
      if (hostIp !== 0 && addressMatches(name, host, hostIp)) return true;
      continue;
    }
    if (name.startsWith('*.') || name.startsWith('.')) {
      const suffix = name.slice(name.indexOf('.'));
      if (host.endsWith(suffix)) return true;
    } else if (host === name || host.endsWith(`.${name}`)) {
      return true;
    }
  }
  return false;
}

/** A URL's user or password as typed: percent escapes decoded, a stray `%` kept. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function splitPort(entry: string): { name: string; entryPort: number | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { name: bracketed[1]!, entryPort: bracketed[2] === undefined ? undefined : Number(bracketed[2]) };
  // An IPv6 address (with or without a CIDR suffix) has several colons and no port.
  if ((entry.match(/:/g) ?? []).length > 1) return { name: entry, entryPort: undefined };
  const at = entry.lastIndexOf(':');
  if (at > 0 && /^\d+$/.test(entry.slice(at + 1))) return { name: entry.slice(0, at), entryPort: Number(entry.slice(at + 1)) };
  return { name: entry, entryPort: undefined };
}

function addressMatches(entry: string, host: string, hostFamily: number): boolean {
  const family = hostFamily === 6 ? 'ipv6' : 'ipv4';
  const [address, bits] = entry.split('/');
  if (address === undefined || isIP(address) !== hostFamily) return false;
  const list = new BlockList();
  if (bits === undefined) list.addAddress(address, family);
  else if (/^\d+$/.test(bits) && Number(bits) <= (hostFamily === 6 ? 128 : 32)) list.addSubnet(address, Number(bits), family);
  else return false;
  return list.check(host, family);
}
