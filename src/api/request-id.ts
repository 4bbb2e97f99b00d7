// The x-request-id of each attempt: a UUID (version 4 layout) that lets a server's logs and an error
// message name the same exchange. It is no secret and guards nothing, so Math.random's 122 bits will
// do (V8 seeds it per process from the OS): node:crypto's randomUUID would make every run load
// node:crypto (util/sha256.ts).
const HEX = '0123456789abcdef';

export function newRequestId(): string {
  let id = '';
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) id += '-';
    else if (i === 14) id += '4';
    // The variant: 10xx.
    else if (i === 19) id += HEX[8 + Math.floor(Math.random() * 4)];
    else id += HEX[Math.floor(Math.random() * 16)];
  }
  return id;
}
