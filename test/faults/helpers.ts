/**
 * Small tools shared by the fault tests: a seeded random source, raw HTTP calls that let network
 * errors through (a test that kills servers needs to see them), and the admin token of a server.
 */
import type { ChildProcess } from 'node:child_process';
import { api } from '../helpers/service.js';

/** A small seeded PRNG (mulberry32): the same seed gives the same kill times and orders. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The `authorization` header for a server that has an admin token (spawnServer, startTestService). */
export function authHeaders(server: unknown): Record<string, string> {
  const token = (server as { token?: unknown } | undefined)?.token;
  return typeof token === 'string' && token !== '' ? { authorization: `Bearer ${token}` } : {};
}

/** One HTTP call; rejects on network errors (refused, reset) instead of hiding them. */
export async function fetchJson(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const { status, body: parsed } = await api(base).call(method, path, body, headers);
  return { status, body: parsed };
}

/** SIGTERM a server child process and wait for it to exit (SIGKILL after 10 s). */
export async function stopServer(server: { child: ChildProcess } | undefined): Promise<void> {
  if (!server) return;
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The q-quantile of sorted numbers. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
