import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { Pipe, type PipeState } from './proxy-pipe.js';

/**
 * What the proxy does to traffic. `latency` adds `ms` per round trip, split evenly between the
 * request (client -> node) and the reply (node -> client), so a command's round trip is `ms`
 * slower and one-way pushes (pub/sub messages, a replication stream) arrive `ms / 2` late.
 */
export type ProxyMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'hold' }
  | { readonly kind: 'cut' };

export interface ProxyTarget {
  readonly host?: string;
  readonly port: number;
}

export interface FaultProxy {
  /** The loopback port clients connect to instead of the node's. */
  readonly port: number;
  readonly target: Required<ProxyTarget>;
  readonly mode: ProxyMode;
  /** Client connections currently open through the proxy. */
  readonly connections: number;
  /** Adds `ms` to every round trip from now on (see ProxyMode). */
  latency(ms: number): void;
  /** Stops forwarding in both directions; connections stay open and bytes wait. */
  hold(): void;
  /** Drops every connection (RST) and refuses new ones until heal(). */
  cut(): void;
  /** Back to pass: held bytes are delivered in order, new connections accepted again. */
  heal(): void;
  /** Destroys every connection and closes the listener. */
  close(): Promise<void>;
}

export interface StartProxyOptions {
  /** Listen on this port (e.g. the one advertised before a restart); default: a free one. */
  readonly port?: number;
}

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  readonly pipes: readonly Pipe[];
}

/** Starts a fault proxy on 127.0.0.1 in front of `target`, in pass mode. */
export async function startProxy(target: ProxyTarget, options: StartProxyOptions = {}): Promise<FaultProxy> {
  const to = { host: target.host ?? '127.0.0.1', port: target.port };
  const links = new Set<Link>();
  let mode: ProxyMode = { kind: 'pass' };

  // Half the round-trip delay each way; the odd millisecond goes to the request.
  const request = (): PipeState => pipeState(mode, Math.ceil);
  const reply = (): PipeState => pipeState(mode, Math.floor);

  const drop = (link: Link): void => {
    if (!links.delete(link)) return;
    for (const pipe of link.pipes) pipe.stop();
    abort(link.client);
    abort(link.upstream);
  };

  // Half-open both ways: a client may send a command and its FIN together and still want the reply.
  const server: Server = createServer({ pauseOnConnect: true, allowHalfOpen: true }, (client) => {
    if (mode.kind === 'cut') {
      client.on('error', () => undefined);
      abort(client);
      return;
    }
    const upstream = new Socket({ allowHalfOpen: true });
    const link: Link = {
      client,
      upstream,
      pipes: [new Pipe(client, upstream, request), new Pipe(upstream, client, reply)],
    };
    links.add(link);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => drop(link));
      // A graceful close on one side travels as a queued FIN; forget the link once both are gone.
      socket.on('close', () => {
        if (client.destroyed && upstream.destroyed) drop(link);
      });
    }
    upstream.connect(to.port, to.host, () => link.pipes.forEach((p) => p.update()));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  const setMode = (next: ProxyMode): void => {
    mode = next;
    if (next.kind === 'cut') for (const link of [...links]) drop(link);
    else for (const link of links) link.pipes.forEach((p) => p.update());
  };

  return {
    port: (server.address() as AddressInfo).port,
    target: to,
    get mode() {
      return mode;
    },
    get connections() {
      return links.size;
    },
    latency: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency must be a non-negative number of ms, got ${ms}`);
      setMode(ms === 0 ? { kind: 'pass' } : { kind: 'latency', ms: Math.round(ms) });
    },
    hold: () => setMode({ kind: 'hold' }),
    cut: () => setMode({ kind: 'cut' }),
    heal: () => setMode({ kind: 'pass' }),
    close: async () => {
      for (const link of [...links]) drop(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** RST rather than FIN: a partition is an abrupt failure, not a polite close by the node. */
function abort(socket: Socket): void {
  if (socket.destroyed) return;
  // resetAndDestroy() on a socket still connecting waits for the connection first.
  if (socket.connecting) socket.destroy();
  else socket.resetAndDestroy();
}

function pipeState(mode: ProxyMode, half: (n: number) => number): PipeState {
  return {
    held: mode.kind === 'hold',
    delayMs: mode.kind === 'latency' ? half(mode.ms / 2) : 0,
  };
}
