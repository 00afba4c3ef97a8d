/**
 * Access keys over PostgreSQL, between replicas: a key pair issued on one server signs requests to
 * the other (the sealed secret opens there with the shared secret key), and revoking the token on
 * one stops the keys on the other within a second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateResourceCommand,
  GetResourceCommand,
  ListResourcesCommand,
} from '@aws-sdk/client-cloudcontrol';
import { stopServer } from '../faults/helpers.js';
import { cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { freshSchema, pgQuery, pgSkip } from '../helpers/postgres.js';
import { replicas } from '../helpers/replicas.js';
import { WIDGET, WIDGET_TYPE, api } from '../helpers/service.js';

test(
  'a key pair issued on one replica works on another, is sealed in the database, and stops there once revoked',
  { skip: pgSkip, timeout: 60_000 },
  async (t) => {
    const schema = freshSchema(t);
    const [one, two] = await replicas(schema, 2);
    t.after(() => Promise.all([stopServer(one!), stopServer(two!)]));
    const admin = api(one!.url, one!.token);
    assert.equal((await admin.call('POST', '/v1/types', WIDGET)).status, 201);
    const keys = await issueKeys(admin, 'writer');

    const onTwo = cloudControl(two!.url, keys);
    await onTwo.send(new CreateResourceCommand({ TypeName: WIDGET_TYPE, DesiredState: '{"Name":"pg1"}' }));
    const onOne = cloudControl(one!.url, keys);
    const got = await onOne.send(new GetResourceCommand({ TypeName: WIDGET_TYPE, Identifier: 'pg1' }));
    assert.equal(JSON.parse(got.ResourceDescription!.Properties!).Name, 'pg1');

    const stored = await pgQuery<{ value_json: string }>(
      `SELECT value_json FROM ${schema}.kv WHERE namespace = 'typeplane:access-keys' AND key = $1`,
      [keys.accessKeyId],
    );
    assert.equal(stored.length, 1);
    assert.match(JSON.parse(stored[0]!.value_json).secret, /^tp1\./, 'the secret is stored sealed');
    const everything = await pgQuery<{ all: string }>(
      `SELECT string_agg(value_json, '|') AS all FROM ${schema}.kv`,
    );
    assert.ok(!everything[0]!.all.includes(keys.secretAccessKey), 'the secret is nowhere in plain text');

    assert.equal((await admin.call('DELETE', `/v1/tokens/${keys.id}`)).status, 204);
    // The other replica remembers a key for a second at most.
    await new Promise((r) => setTimeout(r, 1100));
    await assert.rejects(
      onTwo.send(new ListResourcesCommand({ TypeName: WIDGET_TYPE })),
      (e: unknown) => (e as Error).name === 'UnrecognizedClientException',
    );
  },
);
