// A self-signed certificate for a test server (openssl, valid a day), or undefined where openssl
// is missing: callers skip what needs one.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export interface CertificateFiles {
  keyFile: string;
  certFile: string;
}

/** `altName`: the subjectAltName, e.g. `IP:127.0.0.1` or `DNS:api.example.test`. */
export function selfSignedCertificate(dir: string, subject: string, altName: string): CertificateFiles | undefined {
  const files = { keyFile: join(dir, 'key.pem'), certFile: join(dir, 'cert.pem') };
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        `/CN=${subject}`,
        '-addext',
        `subjectAltName=${altName}`,
        '-days',
        '1',
        '-keyout',
        files.keyFile,
        '-out',
        files.certFile,
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return files;
}

/** Whether openssl can be run here. */
export function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
