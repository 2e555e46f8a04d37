// A TCP forwarder on a fixed local port that a test opens and closes: while closed the port
// refuses connections, so a service pointed at it sees its dependency down; once open it reaches
// the real one.
import net from 'node:net';
import { freePort } from './private-postgres';

export interface TcpProxy {
  port: number;
  open(): Promise<void>;
  /** Stops listening and cuts every forwarded connection. */
  close(): Promise<void>;
}

export async function createTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  return {
    port,
    open() {
      return new Promise((resolve, reject) => {
        const s = net.createServer((client) => {
          const upstream = net.connect(target);
          for (const socket of [client, upstream]) {
            sockets.add(socket);
            socket.on('close', () => sockets.delete(socket));
            socket.on('error', () => socket.destroy());
          }
          client.pipe(upstream).pipe(client);
          client.on('close', () => upstream.destroy());
          upstream.on('close', () => client.destroy());
        });
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
        server = s;
      });
    },
    close() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => (s ? s.close(() => resolve()) : resolve()));
    },
  };
}
