/**
 * Benchmark (not a test): creates per second over HTTP on a type with ten validation rules (CEL in
 * its schema) against the same type without them, in one run on one server (SQLite), the two
 * alternating round by round so the machine's noise falls on both alike. The verdict is issue #34's
 * target: with rules at least 0.9× the creates per second without. A third type is bound by one
 * admission policy (a typical tag check with params), against the same plain type: target ≥ 0.9×
 * too. A fourth type is judged by one HTTP hook (the example Python hook, examples/hooks/python, in
 * a child process on loopback, FAIL mode, the change compliant): its figure is noted, no target.
 *
 *   npm run bench:policy            (ROUNDS=5 PER_ROUND=400 CLIENTS=8)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { generateToken } from '../src/auth/index.js';
import { startService } from '../src/service.js';
import { createRemoteHook } from '../src/providers/sdk.js';
import { startPythonHook, PYTHON_HOOK } from '../test/helpers/python-hook.js';
import { readFileSync } from 'node:fs';
import { desiredState, POLICY, schema } from './policy-type.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PER_ROUND = Number(process.env.PER_ROUND ?? 400);
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const TARGET = 0.9;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'typeplane-bench-policy-'));
  const token = generateToken();
  const hook = await startPythonHook();
  const service = await startService({
    dataDir,
    port: 0,
    logger: pino({ level: 'silent' }),
    adminToken: token,
    hookServers: [createRemoteHook({ name: 'python-hooks', url: hook.url, hooks: [HOOK] })],
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(service.url + path, { method, headers, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const cases = {
    none: 'Bench::Policy::Plain',
    rules: 'Bench::Policy::Ruled',
    policy: 'Bench::Policy::Guarded',
    hook: 'Bench::Policy::Hooked',
  } as const;
  for (const [kind, typeName] of Object.entries(cases)) {
    const r = await call('POST', '/v1/types', schema(typeName, kind === 'rules'));
    if (r.status !== 201) throw new Error(`registering ${typeName}: ${JSON.stringify(r.body)}`);
  }
  const policy = await call('POST', '/v1/policies', POLICY);
  if (policy.status !== 201) throw new Error(`registering the policy: ${JSON.stringify(policy.body)}`);
  const hookSchema = JSON.parse(readFileSync(`${PYTHON_HOOK}require-tags.json`, 'utf8')) as {
    handlers: Record<string, { targetNames: string[] }>;
  };
  for (const handler of Object.values(hookSchema.handlers)) handler.targetNames = [cases.hook];
  const registered = await call('POST', '/v1/hooks', hookSchema);
  if (registered.status !== 201) throw new Error(`registering the hook: ${JSON.stringify(registered.body)}`);
  const configured = await call('PUT', `/v1/hooks/${HOOK}/configuration`, {
    CloudFormationConfiguration: {
      HookConfiguration: { HookInvocationStatus: 'ENABLED', FailureMode: 'FAIL' },
    },
  });
  if (configured.status !== 200) throw new Error(`configuring the hook: ${JSON.stringify(configured.body)}`);
  let n = 0;
  const round = async (typeName: string): Promise<number> => {
    let left = PER_ROUND;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (left-- > 0) {
          const desired = {
            ...desiredState(`w${n++}`),
            ...(typeName === cases.hook ? { Tags: [{ Key: 'costCenter', Value: 'c1' }] } : {}),
          };
          const r = await call('POST', `/v1/resources/${typeName}`, { desiredState: desired });
          if (r.status >= 300) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
        }
      }),
    );
    return PER_ROUND / ((performance.now() - started) / 1000);
  };
  await round(cases.none); // warm-up, every path
  await round(cases.rules);
  await round(cases.policy);
  await round(cases.hook);
  const rates: Record<keyof typeof cases, number[]> = { none: [], rules: [], policy: [], hook: [] };
  for (let i = 0; i < ROUNDS; i++) {
    const order =
      i % 2 === 0
        ? (['none', 'rules', 'policy', 'hook'] as const)
        : (['hook', 'policy', 'rules', 'none'] as const);
    for (const kind of order) rates[kind].push(await round(cases[kind]));
  }
  await service.close();
  hook.stop();
  rmSync(dataDir, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratios = rates.rules.map((r, i) => r / rates.none[i]!);
  console.log(`creates/s, ${ROUNDS} rounds of ${PER_ROUND}, ${CLIENTS} clients (SQLite, HTTP):`);
  console.log(
    `  no rules:  ${rates.none.map((r) => r.toFixed(0)).join(' ')}  median ${median(rates.none).toFixed(0)}`,
  );
  console.log(
    `  ten rules: ${rates.rules.map((r) => r.toFixed(0)).join(' ')}  median ${median(rates.rules).toFixed(0)}`,
  );
  const ratio = median(ratios);
  console.log(
    `verdict: ten rules ${ratio.toFixed(3)}× the creates/s without (median of the rounds' ratios; target ≥ ${TARGET}×): ${ratio >= TARGET ? 'MET' : 'NOT MET'}`,
  );
  console.log(
    `  one policy: ${rates.policy.map((r) => r.toFixed(0)).join(' ')}  median ${median(rates.policy).toFixed(0)}`,
  );
  const policyRatio = median(rates.policy.map((r, i) => r / rates.none[i]!));
  console.log(
    `verdict: one admission policy ${policyRatio.toFixed(3)}× the creates/s without (target ≥ ${TARGET}×): ${policyRatio >= TARGET ? 'MET' : 'NOT MET'}`,
  );
  console.log(
    `  one HTTP hook: ${rates.hook.map((r) => r.toFixed(0)).join(' ')}  median ${median(rates.hook).toFixed(0)}`,
  );
  const hookRatio = median(rates.hook.map((r, i) => r / rates.none[i]!));
  console.log(
    `figure: one HTTP hook (Python, loopback) ${hookRatio.toFixed(3)}× the creates/s without (noted, no target)`,
  );
}

const HOOK = 'Example::Policy::RequireTags';

await main();
