// Listening for a test server: 127.0.0.1 only, any free port, and a close() that also ends the
// connections still open (keep-alive ones would otherwise hold server.close() up).
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Listening {
  port: number;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
