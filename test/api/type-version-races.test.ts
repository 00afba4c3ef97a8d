/**
 * Type versions under concurrency, over HTTP against real servers on both stores: a create racing a
 * breaking registration is either counted by it (the registration is refused) or checked against the
 * new version (and refused by it), never stranded under it; an operation in progress counts as a
 * resource does; identical registrations at once make one version; and two replicas over one
 * PostgreSQL database keep all of it (a replica's cached default version does not let a create in).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stopServer } from '../faults/helpers.js';
import { eachStoreService, type StoreService } from '../helpers/each-store.js';
import { freshSchema, pgSkip } from '../helpers/postgres.js';
import { memoryProvider } from '../helpers/providers.js';
import { replicas } from '../helpers/replicas.js';
import { api, type Api } from '../helpers/service.js';

const ROUNDS = 16;
const raced = (i: number) => `Test::Race::Widget${i}`;
const held = 'Test::Race::Held';

function widget(typeName: string, sizes: string[]): string {
  return JSON.stringify(
    {
      typeName,
      description: 'A widget raced by registrations.',
      properties: { Name: { type: 'string' }, Size: { type: 'string', enum: sizes } },
      additionalProperties: false,
      required: ['Name'],
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
    },
    null,
    2,
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const encoded = (typeName: string) => encodeURIComponent(typeName);

/**
 * Round after round, a create of a Size-L widget and a registration that removes L, sent at once
 * (one of them a few milliseconds later, varied): whichever gets in first, no widget of size L may
 * exist under a default version that refuses it.
 */
async function race(svc: Api, typeName: string, round: number) {
  assert.equal((await svc.call('POST', '/v1/types', widget(typeName, ['S', 'M', 'L']))).status, 201);
  const lag = round % 4;
  const createFirst = round % 2 === 0;
  const [registration, created] = await Promise.all([
    (async () => {
      if (createFirst) await pause(lag);
      return svc.call('POST', '/v1/types', widget(typeName, ['S', 'M']));
    })(),
    (async () => {
      if (!createFirst) await pause(lag);
      return svc.call('POST', `/v1/resources/${encoded(typeName)}?wait=10`, {
        desiredState: { Name: 'big', Size: 'L' },
      });
    })(),
  ]);
  const stored = await svc.call('GET', `/v1/resources/${encoded(typeName)}/big`);
  const shown = await svc.call('GET', `/v1/types/${encoded(typeName)}`);
  if (registration.status === 201) {
    // Registered: the create was checked against version 2, which refuses size L.
    assert.equal(created.status, 400, JSON.stringify(created.body));
    assert.equal(created.body.errorCode, 'InvalidRequest');
    assert.match(created.body.message, /Size/);
    assert.equal(stored.status, 404, 'no widget of size L under version 2');
    assert.equal(shown.body.defaultVersion, '2');
    return 'checked against the new version';
  }
  // Refused: the create got in first and is named (as a resource, or as an operation in progress).
  assert.equal(registration.status, 409, JSON.stringify(registration.body));
  assert.equal(created.body.progressEvent?.operationStatus, 'SUCCESS', JSON.stringify(created.body));
  assert.match(registration.body.message, /breaking change refused: .*TP6003/);
  const counted = registration.body.details.find((d: { violations?: unknown }) => d.violations);
  // Counted as an operation in progress, as a resource, or (finishing between the two reads) as both.
  assert.ok(counted.operationsInProgress + counted.violations.total >= 1, JSON.stringify(counted));
  if (counted.violations.total > 0) assert.deepEqual(counted.violations.identifiers, ['big']);
  assert.equal(stored.body.properties.Size, 'L');
  assert.equal(shown.body.defaultVersion, '1');
  return 'refused';
}

for (const provided of [false, true]) {
  eachStoreService(
    `a create racing a breaking registration is counted by it or checked against it, never stranded (${provided ? 'provider-run' : 'record-backed'} creates)`,
    async (svc, t) => {
      const outcomes: Record<string, number> = {};
      for (let round = 0; round < ROUNDS; round++) {
        const outcome = await race(svc, raced(round), round);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      t.diagnostic(`outcomes over ${ROUNDS} rounds: ${JSON.stringify(outcomes)}`);
      assert.equal(
        Object.values(outcomes).reduce((a, b) => a + b, 0),
        ROUNDS,
      );
    },
    () =>
      provided
        ? { providers: new Map(Array.from({ length: ROUNDS }, (_, i) => [raced(i), memoryProvider()])) }
        : {},
  );
}

/** A provider whose creates wait until the test lets them finish. */
function heldProvider() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const provider = memoryProvider({
    create: async (req, store) => {
      await gate;
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  return { provider, release: () => release() };
}

let holding: ReturnType<typeof heldProvider>;

eachStoreService(
  'an operation in progress counts as a resource: a breaking registration is refused while a create runs',
  async (svc: StoreService) => {
    const H = encoded(held);
    assert.equal((await svc.call('POST', '/v1/types', widget(held, ['S', 'M', 'L']))).status, 201);
    const started = await svc.call('POST', `/v1/resources/${H}`, {
      desiredState: { Name: 'slow', Size: 'L' },
    });
    assert.equal(started.body.progressEvent.operationStatus, 'IN_PROGRESS');

    const refused = await svc.call('POST', '/v1/types', widget(held, ['S', 'M']));
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.match(refused.body.message, /while 0 resources exist and 1 operation is in progress/);
    const counted = refused.body.details.find((d: { violations?: unknown }) => d.violations);
    assert.equal(counted.operationsInProgress, 1);

    holding.release();
    const token = started.body.progressEvent.requestToken as string;
    for (let i = 0; i < 100; i++) {
      const op = await svc.call('GET', `/v1/requests/${token}`);
      if (op.body.progressEvent.operationStatus === 'SUCCESS') break;
      await pause(50);
    }
    // Finished under version 1, it is now a resource the new version would refuse, and is named.
    const again = await svc.call('POST', '/v1/types', widget(held, ['S', 'M']));
    assert.equal(again.status, 409);
    assert.match(
      again.body.message,
      /while 1 resource exists, 1 of the 1 checked violating the new version \(slow\)/,
    );
    const allowed = await svc.call('POST', '/v1/types?allowBreaking=true', widget(held, ['S', 'M']));
    assert.equal(allowed.status, 201);
    assert.deepEqual(allowed.body.types[0].violations.identifiers, ['slow']);
  },
  () => {
    holding = heldProvider();
    return { providers: new Map([[held, holding.provider]]) };
  },
);

/** The outcomes of one registration sent `count` times at once: every one answered, in order of version. */
async function registerAtOnce(servers: Api[], document: string, count: number) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => servers[i % servers.length]!.call('POST', '/v1/types', document)),
  );
  for (const a of answers) assert.ok(a.status === 200 || a.status === 201, JSON.stringify(a.body));
  return answers.map((a) => `${a.body.types[0].outcome} ${a.body.types[0].version}`).sort();
}

eachStoreService(
  'identical registrations at once make one version, the others find it unchanged',
  async (svc) => {
    const typeName = 'Test::Race::Twin';
    assert.deepEqual(await registerAtOnce([svc], widget(typeName, ['S']), 6), [
      'created 1',
      ...Array<string>(5).fill('unchanged 1'),
    ]);
    assert.deepEqual(await registerAtOnce([svc], widget(typeName, ['S', 'M']), 6), [
      'new-version 2',
      ...Array<string>(5).fill('unchanged 2'),
    ]);
    const shown = await svc.call('GET', `/v1/types/${encoded(typeName)}`);
    assert.deepEqual(
      shown.body.versions.map((v: { version: string }) => v.version),
      ['1', '2'],
    );
  },
);

test(
  'two replicas over one PostgreSQL database: identical registrations make one version, and a cached default version lets no create in',
  { skip: pgSkip, timeout: 60_000 },
  async (t) => {
    const schema = freshSchema(t, 'tp_races');
    const [one, two] = await replicas(schema, 2);
    t.after(() => Promise.all([stopServer(one!), stopServer(two!)]));
    const a = api(one!.url, one!.token);
    const b = api(two!.url, two!.token);
    const typeName = 'Test::Race::Replicated';
    const W = encoded(typeName);

    assert.deepEqual(await registerAtOnce([a, b], widget(typeName, ['S', 'M', 'L']), 6), [
      'created 1',
      ...Array<string>(5).fill('unchanged 1'),
    ]);
    assert.deepEqual(await registerAtOnce([a, b], widget(typeName, ['S', 'M', 'L', 'XL']), 6), [
      'new-version 2',
      ...Array<string>(5).fill('unchanged 2'),
    ]);

    // Replica two checks a request against version 2 and keeps it in memory for a while ...
    const warm = await b.call('POST', `/v1/resources/${W}`, { desiredState: { Name: 'x', Size: 'XXL' } });
    assert.equal(warm.status, 400);
    // ... while replica one registers version 3, which refuses L (no resources: it is let through) ...
    const registered = await a.call('POST', '/v1/types', widget(typeName, ['S', 'M']));
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.equal(registered.body.types[0].version, '3');
    // ... so a create of size L on replica two at once is checked again, against version 3.
    const created = await b.call('POST', `/v1/resources/${W}?wait=10`, {
      desiredState: { Name: 'big', Size: 'L' },
    });
    assert.equal(created.status, 400, JSON.stringify(created.body));
    assert.match(created.body.message, /Size/);
    assert.equal((await a.call('GET', `/v1/resources/${W}/big`)).status, 404);
    const fine = await b.call('POST', `/v1/resources/${W}?wait=10`, {
      desiredState: { Name: 'small', Size: 'S' },
    });
    assert.equal(fine.body.progressEvent.operationStatus, 'SUCCESS');
    const shown = await a.call('GET', `/v1/types/${W}`);
    assert.deepEqual(
      shown.body.versions.map((v: { version: string; resourceCount: number }) => [
        v.version,
        v.resourceCount,
      ]),
      [
        ['1', 0],
        ['2', 0],
        ['3', 1],
      ],
    );
  },
);
