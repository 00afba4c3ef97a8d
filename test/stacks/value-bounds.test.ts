/**
 * Bounds a writer cannot get past with a template: a value the functions build (Fn::Join, Fn::Sub,
 * Fn::Base64, Fn::ToJsonString), and a resource's whole properties, hold at most 1 MiB of JSON (a
 * resource's body over the API); all the work of one validation, plan or deployment (what the
 * functions build, and the values handed to resources) is at most 4 MiB of characters
 * (test/stacks/evaluation-budget.test.ts tests the rest of that budget). Each refusal is a located
 * diagnostic, before anything runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestService, WIDGET } from '../helpers/service.js';

test('values built from a large parameter are bounded, each and in all, and refused located', async (t) => {
  const s = await startTestService();
  t.after(() => s.close());
  assert.equal((await s.call('POST', '/v1/types', WIDGET)).status, 201);
  const validate = async (template: string, big: number) => {
    const r = await s.call('POST', '/v1/stacks/validate', { template, parameters: { P: 'x'.repeat(big) } });
    assert.equal(r.status, 200, JSON.stringify(r.body).slice(0, 300));
    return r.body as { valid: boolean; diagnostics: { rule: string; line: number; message: string }[] };
  };
  const head = 'Parameters:\n  P: { Type: String }\nResources:\n';

  for (const [fn, expression, line] of [
    ['Fn::Join', '!Join ["", [!Ref P, !Ref P]]', 4],
    ['Fn::Sub', '!Sub "${P}${P}"', 4],
    ['Fn::ToJsonString', '!ToJsonString [!Ref P, !Ref P]', 4],
  ] as const) {
    const out = await validate(
      `${head}  W: { Type: Test::Shop::Widget, Properties: { Name: w, Color: ${expression} } }\n`,
      600_000,
    );
    assert.equal(out.valid, false, fn);
    const d = out.diagnostics.find((x) => x.rule === 'TP4014');
    assert.ok(d, `${fn}: ${JSON.stringify(out.diagnostics)}`);
    assert.equal(d.line, line);
    assert.match(
      d.message,
      new RegExp(`${fn} would build (1,200,0\\d\\d characters; a value holds at most|over) 1,048,576`),
    );
  }

  // No function, but a list of references: the properties as a whole are over the bound.
  const listed = await validate(
    `${head}  W: { Type: Test::Shop::Widget, Properties: { Name: w, Labels: [!Ref P, !Ref P] } }\n`,
    600_000,
  );
  assert.match(
    listed.diagnostics.map((d) => d.message).join('\n'),
    /over 1,048,576 characters of JSON, the most a resource's properties or an output may hold/,
  );

  // Each value within its bound, but 70 of them: over the evaluation's budget in all.
  const many = Array.from(
    { length: 70 },
    (_, i) =>
      `  W${i}: { Type: Test::Shop::Widget, Properties: { Name: w${i}, Color: !Join ["", [!Ref P, !Ref P]] } }`,
  ).join('\n');
  const all = await validate(`${head}${many}\n`, 500_000);
  assert.match(
    all.diagnostics.map((d) => d.message).join('\n'),
    /evaluating the template would cost over 4,194,304 characters of work in all/,
  );

  // Within the bounds it deploys.
  const fine = await s.call('PUT', '/v1/stacks/fine?wait=20', {
    template: `${head}  W: { Type: Test::Shop::Widget, Properties: { Name: w, Color: !Join ["-", [!Ref P, !Ref P]] } }\n`,
    parameters: { P: 'y'.repeat(100_000) },
  });
  assert.equal(fine.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(fine.body).slice(0, 300));
});
