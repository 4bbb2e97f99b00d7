// A URL's host as a socket takes it, and its port.

/** The host name without the brackets a URL puts around an IPv6 address. */
export function unbracketed(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** The URL's port, or its scheme's (443 for https, else 80). */
export function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}
