/**
 * A YAML tag that is not an intrinsic function's short form (`!Rain::Embed`, `!Foo`) refuses the
 * template where it is written — it used to be dropped, leaving a value its author never meant — and
 * the short forms and YAML's own tags still read as before.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startTestService, tempDir, WIDGET } from '../helpers/service.js';
import { exits, typeplaneCli } from './helpers.js';

const TEMPLATE = [
  'Resources:', // 1
  '  W:', // 2
  '    Type: Test::Shop::Widget', // 3
  '    Properties:', // 4
  '      Name: !Sub "w-${AWS::Region}"', // 5
  '      Color: !Rain::Embed color.txt', // 6
  '      Size: !!str M', // 7
  '      Labels: !Foo [a, b]', // 8
].join('\n');

test('stack validate and deploy refuse a tag that is no intrinsic, at its line and column, and say what the tags are', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const file = join(tempDir(), 'tagged.yaml');
  writeFileSync(file, TEMPLATE);

  const validated = await typeplaneCli(s.url, s.token, ['stack', 'validate', file, '-o', 'json']);
  exits(validated, 1);
  const report = JSON.parse(validated.stdout);
  assert.equal(report.valid, false);
  assert.deepEqual(
    report.diagnostics.map(
      (d: { file: string; line: number; column: number; rule: string }) =>
        `${d.file}:${d.line}:${d.column} ${d.rule}`,
    ),
    [`${file}:6:14 TP1006`, `${file}:8:15 TP1006`],
  );
  assert.match(
    report.diagnostics[0].message,
    /^unknown tag !Rain::Embed: Rain's tags are expanded by Rain \(rain pkg/,
  );
  assert.match(
    report.diagnostics[1].message,
    /^unknown tag !Foo: a template's tags are the short forms of its intrinsic functions, !Ref, .*!GetAtt, !Sub/,
  );

  const put = await s.call('PUT', '/v1/stacks/tagged?wait=10', { template: TEMPLATE });
  assert.equal(put.status, 400, JSON.stringify(put.body));
  assert.match(put.body.message, /unknown tag !Rain::Embed/);
  assert.equal((await s.call('GET', '/v1/stacks/tagged')).status, 404, 'nothing was deployed');

  // Without the unknown tags, the short forms and YAML's own `!!str` read as ever.
  const plain = TEMPLATE.replace('!Rain::Embed color.txt', 'blue').replace('!Foo [a, b]', '[a, b]');
  const deployed = await s.call('PUT', '/v1/stacks/tagged?wait=10', { template: plain });
  assert.equal(deployed.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(deployed.body));
  const widget = await s.call('GET', '/v1/resources/Test::Shop::Widget/w-us-east-1');
  assert.deepEqual(
    [widget.body.properties.Color, widget.body.properties.Size, widget.body.properties.Labels],
    ['blue', 'M', ['a', 'b']],
  );
});
