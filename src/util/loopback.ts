import { isIP } from 'node:net';
import { unbracketed } from './host.js';

/** 127.0.0.0/8 (also IPv4-mapped, ::ffff:127.x.x.x), localhost (and *.localhost), ::1: addresses that never leave this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = unbracketed(hostname).toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host)) return true;
  if (isIP(host) !== 6) return false;
  // The URL parser's canonical form: ::1, and ::ffff:7fxx:xxxx for a mapped 127.x.x.x.
  const canonical = unbracketed(new URL(`http://[${host}]`).hostname);
  return canonical === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical);
}

/** Whether a URL points at this machine (an unparsable URL does not). */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}
