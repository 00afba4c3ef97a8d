/**
 * @module The server's request class: Node's `IncomingMessage`, whose body a front door may take
 * piece by piece as the HTTP parser hands it over, instead of reading it as a stream.
 */
import { IncomingMessage } from 'node:http';

/** Told each piece of a body as it arrives, then `null` once the body has ended. */
export type BodySink = (chunk: Buffer | null) => void;

export class RequestMessage extends IncomingMessage {
  private bodySink: BodySink | undefined = undefined;

  /**
   * Take this request's body as it arrives: possible only before any of it has, i.e. while the request
   * is being dispatched; false otherwise (read it as a stream then). The body's end still ends the
   * stream, as an unread request's does, so the server goes on with the connection as usual.
   */
  takeBody(sink: BodySink): boolean {
    if (this.readableLength > 0 || this.complete || this.bodySink !== undefined) return false;
    this.bodySink = sink;
    return true;
  }

  // The HTTP parser hands each piece of the body to push(), as a stream's own read would.
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    const sink = this.bodySink;
    if (sink === undefined) return super.push(chunk, encoding);
    if (chunk === null) {
      sink(null);
      return super.push(null);
    }
    sink(chunk as Buffer);
    return true;
  }
}
