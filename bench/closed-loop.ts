/**
 * @module The load of the API benchmarks: a fixed number of clients, each with one request in flight.
 */

/**
 * `clients` loops, each issuing one request at a time for `seconds`; `op` answers undefined on
 * success or a description of the failure. Latencies (ms) come sorted; `seconds` is the wall time
 * until the last reply.
 */
export async function closedLoop(
  clients: number,
  seconds: number,
  op: (client: number, seq: number) => Promise<string | undefined>,
): Promise<{ ok: number; failed: number; firstFailure?: string; latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let seq = 0; performance.now() < end; seq++) {
        const t = performance.now();
        let problem: string | undefined;
        try {
          problem = await op(client, seq);
        } catch (e) {
          problem = String(e);
        }
        latencies.push(performance.now() - t);
        if (problem === undefined) ok++;
        else {
          failed++;
          firstFailure ??= problem;
        }
      }
    }),
  );
  const wall = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { ok, failed, ...(firstFailure === undefined ? {} : { firstFailure }), latencies, seconds: wall };
}
