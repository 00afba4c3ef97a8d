/**
 * Contract reports at registration: a `typeplane test -o json` report is attached to a type's
 * registration, `GET /v1/types` shows whether its provider passed, and a server started to require it
 * refuses operations on types whose provider has no passing report for their current registration.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runContractSuite, type SuiteReport } from '../../src/contract/index.js';
import { fixture, widgetSchema, widgetType } from '../contract/helpers.js';
import { settle, startTestService, type TestService } from '../helpers/service.js';

const WIDGET = 'Test::Contract::Widget';
const T = encodeURIComponent(WIDGET);
let passing: SuiteReport;
let failing: SuiteReport;
let svc: TestService;

before(async () => {
  const type = await widgetType();
  // Real reports, as `typeplane test -o json` prints them (JSON round trip included).
  const roundTrip = (r: SuiteReport) => JSON.parse(JSON.stringify(r)) as SuiteReport;
  passing = roundTrip(await runContractSuite({ type, provider: await fixture('correct'), seed: 1, runs: 2 }));
  failing = roundTrip(
    await runContractSuite({ type, provider: await fixture('create-succeeds-twice'), seed: 1, runs: 2 }),
  );
  assert.equal(passing.ok, true);
  assert.equal(failing.ok, false);
  svc = await startTestService({
    providerDefinitions: [await fixture('correct')],
    requirePassingContract: true,
  });
  const stored = await svc.call('POST', '/v1/types', {
    typeName: 'Test::Contract::Stored',
    description: 'Kept by the state provider.',
    properties: { Name: { type: 'string' } },
    additionalProperties: false,
    primaryIdentifier: ['/properties/Name'],
  });
  assert.equal(stored.status, 201);
});
after(() => svc.close());

const contractOf = async (typeName: string) =>
  (await svc.call('GET', '/v1/types')).body.types.find((t: { typeName: string }) => t.typeName === typeName)
    .contract;
const create = (Name: string) =>
  svc.call('POST', `/v1/resources/${T}`, { desiredState: { Name, Region: 'eu' } });

test('without a report the type is listed as untested and its operations are refused', async () => {
  assert.equal(await contractOf(WIDGET), null);
  const res = await create('w1');
  assert.equal(res.status, 400);
  assert.equal(res.body.errorCode, 'InvalidTypeConfiguration');
  assert.match(res.body.message, /no passing contract report/);
  assert.equal((await svc.call('GET', `/v1/resources/${T}/w1`)).body.errorCode, 'InvalidTypeConfiguration');
});

test('the state provider serves its types without a report', async () => {
  const res = await svc.call('POST', `/v1/resources/${encodeURIComponent('Test::Contract::Stored')}`, {
    desiredState: { Name: 's1' },
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
});

test('a failing report is recorded as failed, naming the tests, and changes nothing', async () => {
  const res = await svc.call('POST', `/v1/types/${T}/contract-report`, failing);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.contract.passed, false);
  assert.ok(res.body.contract.failedTests.includes('create→create'));
  assert.equal((await contractOf(WIDGET)).passed, false);
  const refused = await create('w2');
  assert.equal(refused.body.errorCode, 'InvalidTypeConfiguration');
  assert.match(refused.body.message, /failed the contract suite \(.*create→create/);
});

test('a report of another type, or not a report, is refused', async () => {
  const other = await svc.call('POST', `/v1/types/${T}/contract-report`, {
    ...passing,
    typeName: 'Other::X::Y',
  });
  assert.equal(other.status, 400);
  assert.match(other.body.message, /not a contract report of Test::Contract::Widget/);
  const junk = await svc.call('POST', `/v1/types/${T}/contract-report`, { ok: true });
  assert.equal(junk.status, 400);
  const writer = await svc.call('POST', '/v1/tokens', { role: 'writer' });
  const asWriter = await fetch(`${svc.url}/v1/types/${T}/contract-report`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writer.body.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(passing),
  });
  assert.equal(asWriter.status, 403, 'attaching a report is an admin act, as registration is');
});

test('a passing report admits the type version; a new version needs a new one', async () => {
  const res = await svc.call('POST', `/v1/types/${T}/contract-report`, passing);
  assert.equal(res.body.contract.passed, true);
  assert.equal((await contractOf(WIDGET)).passed, true);
  assert.equal((await svc.call('GET', `/v1/types/${T}`)).body.contract.provider, 'correct');
  const ok = await create('w3');
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  assert.equal((await settle(svc, ok.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  const schema = JSON.parse(readFileSync(widgetSchema, 'utf8')) as Record<string, unknown>;
  // The same schema again stores nothing: the registration, and its report, stay.
  assert.equal((await svc.call('POST', '/v1/types', schema)).status, 200);
  assert.equal((await contractOf(WIDGET)).passed, true);
  // A changed schema is a new version, the default now: its report is still to come.
  const changed = { ...schema, description: `${String(schema.description ?? '')} (changed)` };
  assert.equal((await svc.call('POST', '/v1/types', changed)).status, 201);
  assert.equal(await contractOf(WIDGET), null, 'the report was for the earlier version');
  assert.equal((await create('w4')).body.errorCode, 'InvalidTypeConfiguration');
  // The version the report was attached to is admitted still when a request names it.
  const named = await svc.call('POST', `/v1/resources/${T}?version=1`, {
    desiredState: { Name: 'w5', Region: 'eu' },
  });
  assert.equal(named.status, 202, JSON.stringify(named.body));
  assert.equal((await settle(svc, named.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
  // A report attached for the new version by number admits it.
  const v2 = await svc.call('POST', `/v1/types/${T}/contract-report?version=2`, passing);
  assert.equal(v2.status, 201, JSON.stringify(v2.body));
  assert.equal((await contractOf(WIDGET)).passed, true);
});
