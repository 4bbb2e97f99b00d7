// A raw TCP server for HTTP client tests: it reads requests (head and Content-Length body) and
// lets the test write whatever bytes it likes back, well-formed or not, in the pieces it chooses.
import { createServer, type Server, type Socket } from 'node:net';

/** `onRequest` gets the socket each time a full request has arrived (`count`: how many so far on this server). */
export function rawHttpServer(onRequest: (socket: Socket, count: number) => void): Server {
  let count = 0;
  return createServer((socket) => {
    let seen = '';
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      while (seen.includes('\r\n\r\n')) {
        const end = seen.indexOf('\r\n\r\n') + 4;
        const length = Number(/content-length: (\d+)/i.exec(seen.slice(0, end))?.[1] ?? 0);
        if (seen.length < end + length) return;
        seen = seen.slice(end + length);
        count += 1;
        onRequest(socket, count);
      }
    });
    socket.on('error', () => undefined);
  });
}
