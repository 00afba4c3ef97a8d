/**
 * `GET /v1/audit?stage=…` over real HTTP on each store: `OperationComplete` gives the operations'
 * ends only, `ResponseComplete` the requests answered only, alongside the other filters; a value
 * written in a resource (Request level, so the record quotes it) cannot pass for a stage; an unknown
 * stage is refused, located. And `typeplane audit export --stage` asks for the same.
 */
import assert from 'node:assert/strict';
import { eachStoreService } from '../helpers/each-store.js';
import { runCli } from '../helpers/cli.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';
import { trailUntil } from './helpers.js';

eachStoreService(
  'the audit trail filters by stage: operation ends, or requests answered',
  async (svc) => {
    assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
    // A value that reads as a stage inside the record (the Request level quotes the body).
    const created = await svc.call('POST', `/v1/resources/${WIDGET_TYPE}?wait=10`, {
      desiredState: { Name: 'w1', Color: '","stage":"OperationComplete' },
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const token = created.body.progressEvent.requestToken as string;
    await trailUntil(svc, (records) => records.some((r) => r.stage === 'OperationComplete'));

    const ends = await svc.call('GET', '/v1/audit?stage=OperationComplete');
    assert.equal(ends.status, 200, JSON.stringify(ends.body));
    assert.deepEqual(
      ends.body.records.map((r: any) => [r.stage, r.objectRef.requestToken]),
      [['OperationComplete', token]],
    );
    const answered = await svc.call('GET', '/v1/audit?stage=ResponseComplete');
    assert.deepEqual(
      answered.body.records.map((r: any) => [r.stage, r.verb, r.responseStatus.code]),
      [
        ['ResponseComplete', 'create', 202],
        ['ResponseComplete', 'create', 201],
      ],
      'the create (quoting the value) and the registration, newest first',
    );
    // With the other filters: no operation ended with a 4xx.
    const none = await svc.call('GET', '/v1/audit?stage=OperationComplete&outcome=4xx');
    assert.deepEqual(none.body.records, []);

    const wrong = await svc.call('GET', '/v1/audit?stage=Done');
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /stage must be ResponseComplete .* or OperationComplete/);
    assert.equal(wrong.body.details[0].pointer, '/query/stage');

    const exported = await runCli(
      ['audit', 'export', '--stage', 'OperationComplete', '--endpoint', svc.url],
      {
        env: { ...process.env, TYPEPLANE_TOKEN: svc.token, TYPEPLANE_ENDPOINT: '' },
      },
    );
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(
      exported.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).stage),
      ['OperationComplete'],
    );
  },
  () => ({ audit: { store: true, level: 'Request', batch: { maxWaitMs: 10 } } }),
);
