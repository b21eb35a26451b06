import { Socket } from 'node:net';

// The supervisor speaks RESP2 on its own rather than through ioredis: every control command needs
// a hard deadline (a SIGSTOPped node accepts the TCP connection and then never answers), and it
// must never reconnect, queue or run a ready check behind our back.

export type RespValue = string | number | null | RespValue[] | RespError;

/** An error reply (`-ERR ...`), returned as a value so a pipeline keeps the other replies. */
export class RespError extends Error {
  override readonly name = 'RespError';
}

/** The node closed the connection before every reply arrived (it died, or a CLIENT KILL hit us). */
export class RespClosed extends Error {
  override readonly name = 'RespClosed';
}

/** The node did not answer within the deadline (paused, or overloaded). */
export class RespTimeout extends Error {
  override readonly name = 'RespTimeout';
}

type Parsed = { value: RespValue; end: number } | undefined;

function parseAt(buf: Buffer, at: number): Parsed {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const head = buf.toString('utf8', at + 1, eol);
  const next = eol + 2;
  switch (String.fromCharCode(buf[at]!)) {
    case '+':
      return { value: head, end: next };
    case '-':
      return { value: new RespError(head), end: next };
    case ':':
      return { value: Number(head), end: next };
    case '$': {
      const len = Number(head);
      if (len < 0) return { value: null, end: next };
      if (buf.length < next + len + 2) return undefined;
      return { value: buf.toString('utf8', next, next + len), end: next + len + 2 };
    }
    case '*': {
      const count = Number(head);
      if (count < 0) return { value: null, end: next };
      const items: RespValue[] = [];
      let end = next;
      for (let i = 0; i < count; i++) {
        const item = parseAt(buf, end);
        if (!item) return undefined;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      throw new Error(`unexpected RESP type byte ${buf[at]}`);
  }
}

function encode(args: readonly (string | number)[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join('')}`;
}

/**
 * Sends commands as one pipeline on a fresh loopback connection and returns their replies in
 * order. Commands that must share a connection (SET then WAIT) go in the same call.
 */
export function pipeline(port: number, commands: readonly (readonly (string | number)[])[], timeoutMs = 1000): Promise<RespValue[]> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    const replies: RespValue[] = [];
    let buf = Buffer.alloc(0);
    const finish = (err: Error | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(replies);
    };
    const timer = setTimeout(() => finish(new RespTimeout(`127.0.0.1:${port} did not answer within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (err) => finish(err));
    socket.once('close', () => finish(new RespClosed(`127.0.0.1:${port} closed the connection`)));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      try {
        for (let parsed = parseAt(buf, 0); parsed; parsed = buf.length > 0 ? parseAt(buf, 0) : undefined) {
          replies.push(parsed.value);
          buf = buf.subarray(parsed.end);
        }
      } catch (err) {
        finish(err as Error);
        return;
      }
      if (replies.length >= commands.length) finish(undefined);
    });
    socket.connect(port, '127.0.0.1', () => socket.write(commands.map(encode).join('')));
  });
}

/** One command; an error reply is thrown. */
export async function call(port: number, args: readonly (string | number)[], timeoutMs = 1000): Promise<RespValue> {
  const [reply] = await pipeline(port, [args], timeoutMs);
  if (reply instanceof RespError) throw reply;
  return reply ?? null;
}

/** Parses an INFO section's `key:value` lines. */
export function parseInfo(text: RespValue): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof text !== 'string') return out;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return out;
}

/** Flat `[k1, v1, k2, v2]` replies (SENTINEL replicas ...) as objects. */
export function pairs(reply: RespValue): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
  return out;
}
