/**
 * @module The dependency graph: an order in which every resource comes after what it depends on, or
 * the cycle that prevents one. Ordering lives here, not in loops elsewhere.
 */

/** Kahn's algorithm; ties keep the template's order, so plans read in the order they were written. */
export function dependencyOrder(dependsOn: ReadonlyMap<string, ReadonlySet<string>>): {
  order: string[];
  cycle?: string[];
} {
  const remaining = new Map<string, number>();
  const dependants = new Map<string, string[]>();
  for (const [id, deps] of dependsOn) {
    remaining.set(id, deps.size);
    for (const d of deps) {
      const list = dependants.get(d);
      if (list) list.push(id);
      else dependants.set(d, [id]);
    }
  }
  const order: string[] = [];
  const ready = [...dependsOn.keys()].filter((id) => remaining.get(id) === 0);
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    order.push(id);
    for (const next of dependants.get(id) ?? []) {
      const left = remaining.get(next)! - 1;
      remaining.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  if (order.length === dependsOn.size) return { order };
  return { order, cycle: findCycle(dependsOn, new Set(order)) };
}

/** One cycle among the nodes not ordered, as a path that ends where it starts. */
function findCycle(dependsOn: ReadonlyMap<string, ReadonlySet<string>>, done: ReadonlySet<string>): string[] {
  const start = [...dependsOn.keys()].find((id) => !done.has(id))!;
  const path: string[] = [];
  const onPath = new Map<string, number>();
  let at = start;
  // Every node left has a dependency left: walking dependencies must come back to a node on the path.
  while (!onPath.has(at)) {
    onPath.set(at, path.length);
    path.push(at);
    at = [...dependsOn.get(at)!].find((d) => !done.has(d))!;
  }
  return [...path.slice(onPath.get(at)), at];
}

/** Runs `task` for every node once its dependencies have finished, at most `limit` at once. */
export async function walkGraph(
  nodes: readonly string[],
  dependsOn: (id: string) => Iterable<string>,
  limit: number,
  task: (id: string) => Promise<boolean>,
): /** `skipped`: never started (a failure stopped the walk first). */
Promise<{ failed: string[]; skipped: string[] }> {
  const waiting = new Map<string, number>();
  const dependants = new Map<string, string[]>();
  const members = new Set(nodes);
  for (const id of nodes) {
    let count = 0;
    for (const d of dependsOn(id)) {
      if (!members.has(d)) continue;
      count++;
      const list = dependants.get(d);
      if (list) list.push(id);
      else dependants.set(d, [id]);
    }
    waiting.set(id, count);
  }
  const ready = nodes.filter((id) => waiting.get(id) === 0);
  const failed: string[] = [];
  let stop = false;
  let running = 0;
  const started = new Set<string>();
  return new Promise((resolve, reject) => {
    const pump = () => {
      while (!stop && running < limit && ready.length > 0) {
        const id = ready.shift()!;
        running++;
        started.add(id);
        task(id).then(
          (ok) => {
            running--;
            if (!ok) {
              failed.push(id);
              stop = true; // what has started finishes; nothing new starts
            } else
              for (const next of dependants.get(id) ?? []) {
                const left = waiting.get(next)! - 1;
                waiting.set(next, left);
                if (left === 0) ready.push(next);
              }
            pump();
          },
          (error: unknown) => {
            stop = true;
            reject(error as Error);
          },
        );
      }
      if (running === 0 && (stop || ready.length === 0)) {
        resolve({ failed, skipped: nodes.filter((id) => !started.has(id)) });
      }
    };
    pump();
  });
}
