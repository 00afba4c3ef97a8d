/**
 * Bytes allocated on V8's heap while some work ran: what each garbage collection found, plus what is
 * left at the end — a count no machine's speed or load changes (run it in a process of its own).
 */
import v8 from 'node:v8';

export async function allocatedDuring(work: () => Promise<void>): Promise<number> {
  const profiler = new v8.GCProfiler();
  const start = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  await work();
  const end = v8.getHeapStatistics().used_heap_size;
  let allocated = 0;
  let last = start;
  for (const gc of profiler.stop().statistics) {
    allocated += gc.beforeGC.heapStatistics.usedHeapSize - last;
    last = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + end - last;
}
