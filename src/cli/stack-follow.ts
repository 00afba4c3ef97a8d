/**
 * @module `stack events <name> --follow`: the stack's events so far, then each new one as the server
 * streams it (a watch of the stack's events, docs/watch.md), until the running deployment ends — the
 * stack's own event with a final status — or Ctrl-C. A table line an event (redrawn in place on a
 * terminal), or with `-o json` one event a line.
 */
import type { Client, OutputFormat } from './client.js';
import { watchEnded } from './watch-output.js';
import { stackProgress, type StackEventView } from './stack-progress.js';

/** A stack's own event (not one of its resources'). */
const STACK_TYPE = 'Typeplane::Stack';
const ENDED = /(_COMPLETE|_FAILED)$/;
const SUCCEEDED = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE', 'DELETE_COMPLETE']);

/**
 * Follows stack `name`'s running deployment: `listed` are its events so far (read after the stack,
 * so a deployment running then ends in them or after them), `running` whether one ran. Exit 0 when
 * the deployment succeeded (or none ran), 1 when it failed or rolled back.
 */
export async function followStackEvents(
  client: Client,
  name: string,
  listed: readonly StackEventView[],
  running: boolean,
  output: OutputFormat,
  stackId?: string,
): Promise<number> {
  const progress = stackProgress(process.stdout);
  const printed = new Set<string>();
  const show = (events: readonly StackEventView[]) => {
    if (output !== 'json') return progress.add(events);
    for (const e of events)
      if (!printed.has(e.eventId)) {
        printed.add(e.eventId);
        process.stdout.write(`${JSON.stringify(e)}\n`);
      }
  };
  show(listed);
  if (!running) return 0;
  // The deployment's end, when it is among the events listed: after its last beginning.
  const begun = listed.findLastIndex((e) => e.type === STACK_TYPE && /_IN_PROGRESS$/.test(e.status));
  const ended = listed.slice(begun + 1).find((e) => e.type === STACK_TYPE && ENDED.test(e.status));
  if (ended) return SUCCEEDED.has(ended.status) ? 0 : 1;
  let final: string | undefined;
  const query = new URLSearchParams({
    watch: 'true',
    // A little before the last event listed: one written late by a parallel step is not missed.
    resourceVersion: since(listed.at(-1)?.eventId),
    ...(stackId ? { stackId } : {}),
  });
  const stopped = await client.watch(`/v1/stacks/${encodeURIComponent(name)}/events?${query}`, (event) => {
    if (event.type !== 'ADDED') return;
    const { resourceVersion: _version, ...e } = event.object as unknown as StackEventView & {
      resourceVersion?: string;
    };
    show([e]);
    if (e.type === STACK_TYPE && ENDED.test(e.status)) {
      final = e.status;
      return false;
    }
  });
  if (final !== undefined) return SUCCEEDED.has(final) ? 0 : 1;
  throw watchEnded(stopped, `the watch of stack ${name}'s events ended before its deployment did`);
}

/** Where to watch from: 2 s before the event's time (events are shown once whatever comes twice). */
function since(eventId: string | undefined): string {
  return eventId === undefined ? '0' : String(Math.max(0, Number(eventId.slice(0, 15)) - 2000));
}
