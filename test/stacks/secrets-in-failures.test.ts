/**
 * A NoEcho value that reaches a failure stays hidden: an evaluation error over it (an index out of
 * range, a missing mapping key, an export no stack has) and a provider's message quoting it (on a
 * property that is not write-only) show `****` in the stack's reason, its events and its answers;
 * the server's log and the store's files never hold it; a plan of such a template is refused (400,
 * located), not answered 500.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WIDGET_TYPE } from '../helpers/service.js';
import { memoryProvider } from '../helpers/providers.js';
import { plainAtRest, watchedService } from './helpers.js';

const SECRET = 'Vb37kq-noecho-secret';
/** A piece of it: an error over a value derived from a secret does not quote it either. */
const PIECE = 'Vb37kq';

/** Widget A, deployed first, and a resource or output added in the update that fails. */
function update(added: string): string {
  return `
Parameters:
  Pick: { Type: String, NoEcho: true }
Mappings:
  Sizes: { red: { small: S } }
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: a, Color: red, Labels: [x, y] } }
${added}`;
}

const FAILING = {
  select:
    '  B: { Type: Test::Shop::Widget, Properties: { Name: b, Color: !Select [!Ref Pick, !GetAtt A.Labels] } }',
  findInMap:
    '  B: { Type: Test::Shop::Widget, Properties: { Name: b, Size: !FindInMap [Sizes, !GetAtt A.Color, !Select [0, !Split ["-", !Ref Pick]]] } }',
  importValue: 'Outputs:\n  Linked: { Value: { "Fn::ImportValue": !Sub "${Pick}-export" } }',
};

test('an evaluation error over a NoEcho value shows it in no reason, event, answer, log line or stored byte; its plan is a 400', async (t) => {
  const { s, call, answers, logs } = await watchedService(t);
  const first = await call('PUT', '/v1/stacks/s?wait=20', {
    template: update(''),
    parameters: { Pick: 'plain' },
  });
  assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body));

  for (const [name, added] of Object.entries(FAILING)) {
    const body = { template: update(added), parameters: { Pick: SECRET } };
    const put = await call('PUT', '/v1/stacks/s?wait=20', body);
    assert.equal(put.body.stack.status, 'UPDATE_ROLLBACK_COMPLETE', `${name}: ${JSON.stringify(put.body)}`);
    assert.match(
      put.body.stack.statusReason,
      /\(hidden: NoEcho\)|\*\*\*\*/,
      `${name}: the reason says where the value was hidden`,
    );
    if (name === 'importValue') continue; // outputs are not planned
    const plan = await call('POST', '/v1/stacks/s/plans', body);
    assert.equal(plan.status, 400, `${name}: ${JSON.stringify(plan.body)}`);
    assert.equal(plan.body.errorCode, 'InvalidRequest');
    const [diagnostic] = plan.body.details;
    assert.match(diagnostic.pointer, /^\/Resources\/B\/Properties\//, JSON.stringify(diagnostic));
    assert.ok(diagnostic.line > 1, `${name}: the diagnostic is located: ${JSON.stringify(diagnostic)}`);
  }
  // Found while validating (the values are at hand): the diagnostics do not quote it either.
  const validated = await call('POST', '/v1/stacks/validate', {
    template: update(
      '  B: { Type: Test::Shop::Widget, Properties: { Name: b, Color: !Select [!Ref Pick, [x, y]], Size: { "Fn::ImportValue": !Sub "x-${Pick}" } } }',
    ),
    parameters: { Pick: SECRET },
  });
  assert.equal(validated.body.valid, false, JSON.stringify(validated.body));
  // The Select's error only: validate alone does not look for exports (as ValidateTemplate), and the
  // import's name, built from the secret, is quoted nowhere all the same (checked below).
  assert.equal(validated.body.diagnostics.filter((d: any) => d.severity === 'error').length, 1);
  await call('GET', '/v1/stacks/s/events?maxResults=1000');
  await call('GET', '/v1/stacks/s');

  for (const secret of [SECRET, PIECE]) {
    const shown = answers.filter((x) => x.includes(secret));
    assert.deepEqual(shown, [], `${secret} in an answer`);
    assert.ok(!logs().includes(secret), `${secret} in the log`);
  }
  await s.close();
  assert.deepEqual(plainAtRest(s.dataDir, [SECRET, PIECE]), [], 'in plain text at rest');
});

test("a provider's failure quoting a NoEcho value (not write-only) shows it masked in the stack's events and reason", async (t) => {
  const provider = memoryProvider({
    create: (req) => ({
      status: 'FAILED',
      errorCode: 'InvalidRequest',
      message: `color ${String(req.desiredState.Color)} is out of stock`,
    }),
  });
  const { s } = await watchedService(t, { providers: new Map([[WIDGET_TYPE, provider]]) });
  const put = await s.call('PUT', '/v1/stacks/s?wait=20', {
    template: `
Parameters:
  Shade: { Type: String, NoEcho: true }
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: a, Color: !Ref Shade } }
`,
    parameters: { Shade: SECRET },
  });
  assert.equal(put.body.stack.status, 'ROLLBACK_COMPLETE', JSON.stringify(put.body));
  assert.equal(put.body.stack.statusReason, 'A: InvalidRequest: color **** is out of stock');
  const events = await s.call('GET', '/v1/stacks/s/events?maxResults=1000');
  const failed = events.body.events.find((e: any) => e.status === 'CREATE_FAILED');
  assert.equal(failed.reason, 'InvalidRequest: color **** is out of stock');
  assert.ok(!JSON.stringify(events.body).includes(SECRET));
});
