/**
 * Secrets of a recipe, over real HTTP against `typeplane serve`: the password the recipe generates
 * (GeneratedSecrets) and the instance's write-only input (adminKey) reach the lower provider — whose
 * own files record what it was handed, the one place the test learns them — and nowhere else: not in
 * any answer (the instance, its operations, its drift and upgrade plan, the stack, its events, outputs
 * and drift, the recipe, the lower resource), not in the server's logs (at debug), not in the store
 * (the SQLite database, its WAL and shared memory; every row of the PostgreSQL schema). The password,
 * mapped to the instance's write-only `password`, stays in the instance's sealed record and is never
 * read back. Both stores at once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { api, spawnServer, tempDir, type Api } from '../helpers/service.js';
import { stopServer } from '../faults/helpers.js';
import { PG_URL, dropSchema, pgQuery, pgSkip } from '../helpers/postgres.js';
import { stackNameOf } from '../../src/recipes/instance-stack.js';
import { RecipeStore } from '../../src/recipes/records.js';
import { createSealer } from '../../src/secrets/sealer.js';
import { openPostgresStore, openSqliteStore } from '../../src/store/index.js';

const PROVIDER = fileURLToPath(new URL('../fixtures/recording-vault-provider/provider.ts', import.meta.url));
const BOX_TYPE = 'Test::Vault::Box';
const VAULT_TYPE = 'MyCompany.Secrets/vaults';
const VAULT = `
name: MyCompany.Secrets
types:
  vaults:
    description: A vault made by a recipe.
    apiVersions:
      '2025-01-01':
        schema:
          type: object
          properties:
            adminKey:
              type: string
              description: The key its admins open it with.
              x-radius-sensitive: true
            password:
              type: string
              description: The password the recipe made for it (never read back).
              x-radius-sensitive: true
            status:
              type: object
              readOnly: true
              properties:
                host:
                  type: string
    capabilities: ["SupportsRecipes"]
`;
const RECIPE = `
Metadata:
  Typeplane::Recipe:
    GeneratedSecrets: [Password]
    Outputs:
      Host: status.host
      Secret: password
Parameters:
  Password:
    Type: String
    NoEcho: true
Resources:
  Box:
    Type: ${BOX_TYPE}
    Properties:
      Name: !GetAtt context.resource.name
      Password: !Ref Password
      AdminKey: !GetAtt context.resource.properties.adminKey
Outputs:
  Host:
    Value: !GetAtt Box.Host
  Secret:
    Value: !Ref Password
`;
const enc = encodeURIComponent;
const T = enc(VAULT_TYPE);
const stack = stackNameOf(VAULT_TYPE, 'orders');

// The two stores at once: each mostly waits for its server and its operations.
describe('secrets of a recipe', { concurrency: true }, () => {
  for (const kind of ['sqlite', 'postgresql'] as const)
    describe(`[${kind}]`, { skip: kind === 'postgresql' ? pgSkip : false, concurrency: 1 }, () =>
      secretsOn(kind),
    );
});

function secretsOn(kind: 'sqlite' | 'postgresql'): void {
  const dir = tempDir('typeplane-recipe-secrets-');
  const dataDir = join(dir, 'data');
  const root = join(dir, 'boxes');
  const secretKey = randomBytes(32).toString('base64');
  const schema = `tp_secrets_${randomBytes(6).toString('hex')}`;
  /** The instance's key, its changed key, and the key of an instance whose provider fails quoting it. */
  const adminKeys = [0, 1, 2].map(() => `ak-${randomBytes(12).toString('hex')}`);
  let server: Awaited<ReturnType<typeof spawnServer>>;
  let admin: Api;
  /** Every answer the server gave, as text. */
  const answers: string[] = [];

  async function call(method: string, path: string, body?: unknown): Promise<any> {
    const r = await admin.call(method, path, body);
    answers.push(`${method} ${path} → ${JSON.stringify(r.body)}`);
    assert.ok(r.status < 300, `${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Follow an operation to its end, keeping every answer on the way. */
  async function follow(requestToken: string): Promise<any> {
    for (;;) {
      const { progressEvent } = await call('GET', `/v1/requests/${requestToken}`);
      if (progressEvent.operationStatus !== 'IN_PROGRESS') return progressEvent;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** What the lower provider was last handed for the box. */
  const handed = () =>
    (JSON.parse(readFileSync(join(root, 'orders.json'), 'utf8')) as { handed: Record<string, string> })
      .handed;

  /**
   * What the store holds: on SQLite its files (the database, its WAL and shared memory; the key file
   * aside), on PostgreSQL every row of every table of its schema.
   */
  async function storeBytes(): Promise<{ where: string; bytes: Buffer }[]> {
    if (kind === 'sqlite')
      return readdirSync(dataDir)
        .filter((f) => f.startsWith('typeplane.db'))
        .map((f) => ({ where: `the file ${f}`, bytes: readFileSync(join(dataDir, f)) }));
    const tables = await pgQuery<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    assert.ok(tables.length > 0, `the schema ${schema} has tables`);
    const out: { where: string; bytes: Buffer }[] = [];
    for (const { name } of tables) {
      const rows = await pgQuery<{ row: string }>(`SELECT t::text AS row FROM ${schema}."${name}" t`);
      out.push({ where: `the table ${name}`, bytes: Buffer.from(rows.map((r) => r.row).join('\n')) });
    }
    return out;
  }

  async function assertNowhere(secret: string, what: string): Promise<void> {
    const forms = [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')];
    const stored = await storeBytes();
    for (const form of forms) {
      for (const a of answers) assert.ok(!a.includes(form), `${what} in an answer: ${a.slice(0, 300)}`);
      assert.ok(!server.logs().includes(form), `${what} in the server's logs`);
      assert.ok(!server.stdout().includes(form), `${what} in the server's output`);
      for (const { where, bytes } of stored)
        assert.ok(!bytes.includes(Buffer.from(form)), `${what} in the store: ${where}`);
    }
  }

  let password: string;
  /** The password generated for the instance whose create failed. */
  let leakedPassword: string;
  let failure: { operationStatus: string; errorCode: string; statusMessage: string };

  before(async () => {
    const storeArgs = kind === 'postgresql' ? ['--database-url', PG_URL, '--database-schema', schema] : [];
    server = await spawnServer(dataDir, ['--provider', PROVIDER, '--log-level', 'debug', ...storeArgs], {
      VAULT_PROVIDER_ROOT: root,
      TYPEPLANE_SECRET_KEY: secretKey,
    });
    admin = api(server.url, server.token);
    const type = await admin.call('POST', '/v1/types', VAULT, { 'content-type': 'application/yaml' });
    assert.equal(type.status, 201, JSON.stringify(type.body));
    await call('POST', '/v1/recipes', { typeName: VAULT_TYPE, template: RECIPE, file: 'vault.yaml' });

    const created = await call('POST', `/v1/resources/${T}`, {
      desiredState: { name: 'orders', adminKey: adminKeys[0] },
    });
    const done = await follow(created.progressEvent.requestToken);
    assert.equal(done.operationStatus, 'SUCCESS', JSON.stringify(done));
    // What the provider was handed: the generated password and the instance's key.
    password = handed().Password!;
    assert.equal(handed().AdminKey, adminKeys[0]);
    assert.ok(password.length >= 24, password);

    // A change of the write-only input reaches the box; the generated password stays the instance's.
    const patched = await call('PATCH', `/v1/resources/${T}/orders`, {
      patchDocument: [{ op: 'replace', path: '/adminKey', value: adminKeys[1] }],
    });
    const changed = await follow(patched.progressEvent.requestToken);
    assert.equal(changed.operationStatus, 'SUCCESS', JSON.stringify(changed));
    assert.equal(handed().AdminKey, adminKeys[1]);
    assert.equal(handed().Password, password);

    // A provider that quotes the secrets in its failure: the recipe rolls back and fails, masked.
    const leaky = await call('POST', `/v1/resources/${T}`, {
      desiredState: { name: 'leaky', adminKey: adminKeys[2] },
    });
    failure = await follow(leaky.progressEvent.requestToken);
    leakedPassword = (
      JSON.parse(readFileSync(join(root, '.failed-leaky.txt'), 'utf8')) as { Password: string }
    ).Password;
    // Made without a stack, the failed instance left none (its lower operations are in /v1/requests).
    const leakyStack = await admin.call('GET', `/v1/stacks/${stackNameOf(VAULT_TYPE, 'leaky')}`);
    assert.equal(leakyStack.status, 404, JSON.stringify(leakyStack.body));

    for (const path of [
      `/v1/resources/${T}/orders`,
      `/v1/resources/${T}`,
      `/v1/resources/${T}/orders/drift`,
      `/v1/resources/${T}/orders/upgrade`,
      '/v1/requests',
      '/v1/stacks',
      `/v1/stacks/${stack}`,
      `/v1/stacks/${stack}/events?maxResults=1000`,
      `/v1/stacks/${stack}/outputs`,
      `/v1/stacks/${stack}/drift`,
      '/v1/recipes',
      `/v1/recipes/default/${T}/default`,
      '/v1/environments/default',
      `/v1/resources/${enc(BOX_TYPE)}/orders`,
      `/v1/resources/${enc(BOX_TYPE)}`,
      '/v1/stacks?deleted=true',
    ])
      await call('GET', path);
  });
  after(async () => {
    await stopServer(server);
    if (kind === 'postgresql') await dropSchema(schema);
  });

  it('the instance reads back its outputs, without the write-only password or adminKey', async () => {
    const read = await call('GET', `/v1/resources/${T}/orders`);
    const props = read.resourceDescription?.properties ?? read.properties;
    assert.equal(props.status.host, 'orders.vault.internal');
    assert.equal(props.name, 'orders');
    assert.equal(props.password, undefined);
    assert.equal(props.adminKey, undefined);
    const outputs = await call('GET', `/v1/stacks/${stack}/outputs`);
    const secret = outputs.outputs.find((o: { name: string }) => o.name === 'Secret');
    assert.ok(secret, JSON.stringify(outputs));
    assert.notEqual(secret.value, password);
  });

  it("a provider's failure quoting the secrets fails the instance with its code and words, the secrets masked", async () => {
    assert.equal(failure.operationStatus, 'FAILED', JSON.stringify(failure));
    assert.equal(failure.errorCode, 'InvalidRequest', JSON.stringify(failure));
    assert.match(failure.statusMessage, /Box: password \S+ is refused for admin key \S+/);
    assert.ok(leakedPassword.length >= 24, leakedPassword);
    assert.ok(!failure.statusMessage.includes(leakedPassword), failure.statusMessage);
    assert.ok(!failure.statusMessage.includes(adminKeys[2]!), failure.statusMessage);
    await assertNowhere(leakedPassword, "the failed instance's password");
    await assertNowhere(adminKeys[2]!, "the failed instance's adminKey");
  });

  it('the generated password and the write-only inputs appear in no answer, log line or store', async () => {
    // The search finds what is there: the output, and the type in the store's files.
    assert.ok(answers.some((a) => a.includes('orders.vault.internal')));
    assert.ok((await storeBytes()).some(({ bytes }) => bytes.includes(Buffer.from(BOX_TYPE))));
    await assert.rejects(assertNowhere('orders.vault.internal', 'the host'), /the host in an answer/);
    await assert.rejects(assertNowhere('secret key loaded', 'a log line'), /a log line in the server's logs/);
    await assertNowhere(password, 'the generated password');
    await assertNowhere(adminKeys[0]!, 'the first adminKey');
    await assertNowhere(adminKeys[1]!, 'the second adminKey');
  });

  it("the password is derived again from the instance's record (its write-only values sealed), and the store stays clean once the server stops", async () => {
    await stopServer(server);
    await assertNowhere(password, 'the generated password');
    await assertNowhere(adminKeys[1]!, 'the adminKey');
    await assertNowhere(leakedPassword, "the failed instance's password");
    await assertNowhere(adminKeys[2]!, "the failed instance's adminKey");
    const store =
      kind === 'sqlite'
        ? await openSqliteStore(join(dataDir, 'typeplane.db'))
        : await openPostgresStore(PG_URL, { schema });
    try {
      const records = new RecipeStore(store, createSealer(Buffer.from(secretKey, 'base64')));
      const held = await records.getInstance(VAULT_TYPE, 'orders');
      assert.ok(held, 'the instance has a record');
      assert.equal(held.record.model?.password, password, 'the secret output filled the write-only property');
      assert.equal(held.record.model?.adminKey, adminKeys[1]);
      assert.deepEqual(held.record.generated, { Password: password });
      assert.equal(await records.getInstance(VAULT_TYPE, 'leaky'), undefined, 'the failed one left nothing');
    } finally {
      await store.close();
    }
  });
}
