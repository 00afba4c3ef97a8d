/**
 * A rule id names one rule: users match on ids (in CI filters, suppressions, editors), so no two of the
 * project's catalogues — schemas, hook schemas and validation rules; stack templates; recipes; typeplane
 * diff's changes — may give one id two meanings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHANGE_RULES } from '../../src/diff/rules.js';
import { RECIPE_RULES } from '../../src/recipes/rules.js';
import { RULES } from '../../src/schema/diagnostics.js';
import { STACK_RULES } from '../../src/stacks/rules.js';

test('every rule id belongs to one catalogue only', () => {
  const catalogues = { schema: RULES, stack: STACK_RULES, recipe: RECIPE_RULES, diff: CHANGE_RULES };
  const owner = new Map<string, string>();
  const clashes: string[] = [];
  for (const [name, rules] of Object.entries(catalogues)) {
    for (const id of Object.keys(rules)) {
      const first = owner.get(id);
      if (first !== undefined) clashes.push(`${id} is in ${first} and ${name}`);
      else owner.set(id, name);
    }
  }
  assert.ok(owner.size > 100, `read ${String(owner.size)} ids`);
  assert.deepEqual(clashes, []);
});
