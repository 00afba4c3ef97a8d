/**
 * @module Work in steps: a generator that yields where it may pause, run to its end at once (the CLI,
 * tests) or in slices that give the event loop back between them (the server), so that one large
 * document never holds a server's other requests for the whole of its parse.
 */

/** Work that yields (nothing) where it may pause and returns its result. */
export type Steps<T> = Generator<undefined, T, undefined>;

/** The most a slice of work runs before the event loop gets a turn, in milliseconds. */
export const SLICE_MS = 4;

/** Runs `steps` to their end without pausing. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs `steps` to their end, giving the event loop a turn (timers, I/O, other requests) whenever a
 * slice has run `sliceMs`. Work that ends within one slice costs no extra turn.
 */
export async function finishYielding<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
