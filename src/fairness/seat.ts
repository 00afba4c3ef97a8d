/**
 * @module A request's seat, held by its response until it closes (answered, or its client gone: Node
 * emits no 'finish' then) or until the request gives it back early because it now only waits (a
 * watch streaming, `?wait` waiting for an operation's end): waiting holds no seat, as Kubernetes
 * counts a watch's start and not its life.
 */
import type { ServerResponse } from 'node:http';
import type { Flow } from './flow.js';

const SEAT = Symbol('fairness seat');
type Seated = ServerResponse & { [SEAT]?: Flow };

/** `response` holds a seat of `flow` until it closes; one listener shared by all, no closure per request. */
export function holdSeat(response: ServerResponse, flow: Flow): void {
  (response as Seated)[SEAT] = flow;
  // on, not once: once wraps the listener anew for every request; a response closes once anyway.
  response.on('close', onClose);
}

/** Gives back the seat `response` holds, if any (once: its close then gives back nothing). */
export function releaseSeat(response: ServerResponse): void {
  const flow = (response as Seated)[SEAT];
  if (flow === undefined) return;
  (response as Seated)[SEAT] = undefined;
  flow.level.leave(flow);
}

function onClose(this: ServerResponse): void {
  releaseSeat(this);
}
