/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against a real
 * `typeplane serve` child process: signing in, each page read through the /v1 API with the signed-in
 * token, live updates without reloading, what a scoped reader sees, no write-only value or secret in
 * the page or its traffic, axe-core clean on every page, the strict Content-Security-Policy kept
 * (no violation reported). One browser and one page for the whole file; screenshots of each page go
 * to $TEST_ARTIFACTS (or the temp folder), never the checkout.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkip } from '../helpers/requirements.js';
import { api, settle, spawnServer, tempDir, WIDGET, type Api } from '../helpers/service.js';
import { axeViolations, launchBrowser, screenshot } from './browser.js';

const skip = chromiumSkip();

const WRITE_ONLY = 'wo-Secret-Kq71zv';
const NO_ECHO = 'noecho-Param-Tp33xw';
const WIDGET_V2 = JSON.stringify({
  ...JSON.parse(WIDGET),
  properties: { ...JSON.parse(WIDGET).properties, Shape: { type: 'string', description: 'Its shape.' } },
});
const OTHER = JSON.stringify({
  typeName: 'Other::Team::Thing',
  description: 'A type of another team.',
  properties: { Name: { type: 'string' } },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Name'],
});
const STACK = (withC: boolean) => `
Parameters:
  Password: { Type: String, NoEcho: true }
Resources:
  A: { Type: Test::Shop::Widget, Properties: { Name: stack-a, Color: red, Secret: !Ref Password } }
  B: { Type: Test::Shop::Widget, DependsOn: A, Properties: { Name: stack-b, Color: !GetAtt A.Color } }
${withC ? '  C: { Type: Test::Shop::Widget, DependsOn: B, Properties: { Name: stack-c } }' : ''}
Outputs:
  Password: { Value: !Ref Password }
  First: { Value: !GetAtt A.Name }
`;

let admin: Api;
let readerToken: string;
let readerId: string;
let browser: Browser;
let page: Page;
/** Every finished /v1 answer the page received, as text. */
const answers: string[] = [];
/** What the browser reported of the page's Content-Security-Policy (none expected). */
const cspReports: string[] = [];
/** What the page's watches streamed (NDJSON), read through the DevTools protocol as it arrived. */
const streamed: string[] = [];

const hash = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

async function go(...parts: string[]): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash(...parts))}`);
}

async function axeClean(name: string): Promise<void> {
  await screenshot(page, name);
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], `axe-core on the ${name} page: ${JSON.stringify(violations, null, 1)}`);
}

before(async () => {
  if (skip) return;
  const server = await spawnServer(tempDir());
  admin = api(server.url, server.token);
  for (const document of [WIDGET, WIDGET_V2, OTHER])
    assert.ok([200, 201].includes((await admin.call('POST', '/v1/types', document)).status));
  const queues = readFileSync(new URL('../../examples/queues.yaml', import.meta.url), 'utf8');
  const manifest = await admin.call('POST', '/v1/types', queues, { 'content-type': 'application/yaml' });
  assert.equal(manifest.status, 201);
  const reader = await admin.call('POST', '/v1/tokens', { role: 'reader', types: ['Test::Shop::*'] });
  readerToken = reader.body.token;
  readerId = reader.body.id;
  browser = await launchBrowser();
  page = await browser.newPage();
  // A watch's answer never finishes while the page watches: its bytes are taken as they arrive.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const watches = new Set<string>();
  const text = (data: string | undefined) => (data ? Buffer.from(data, 'base64').toString('utf8') : '');
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    if (!response.mimeType.includes('ndjson')) return;
    watches.add(requestId);
    cdp.send('Network.streamResourceContent', { requestId }).then(
      ({ bufferedData }) => streamed.push(text(bufferedData)),
      () => {},
    );
  });
  cdp.on('Network.dataReceived', ({ requestId, data }) => {
    if (watches.has(requestId)) streamed.push(text(data));
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspReports.push(message.text());
  });
  page.on('response', (response) => {
    if (!new URL(response.url()).pathname.startsWith('/v1/')) return;
    // A watch's stream never finishes while the page watches: its text is not awaited.
    if ((response.headers()['content-type'] ?? '').includes('ndjson')) return;
    response.text().then(
      (text) => answers.push(text),
      () => {},
    );
  });
});

after(async () => {
  await browser?.close();
});

test(
  'the console is served with a strict Content-Security-Policy; signing in keeps the token out of URLs and cookies',
  { skip },
  async () => {
    const answer = await page.goto(`${admin.url}/console`);
    assert.equal(answer?.status(), 200);
    const csp = answer!.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(answer!.headers()['cache-control'], 'no-cache');
    const script = await page.getAttribute('script[type=module]', 'src');
    const asset = await admin.call('GET', script!);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await admin.call('GET', '/console/assets/nothing-here.js')).status, 404);

    await page.fill('#token', 'tp_not-a-token-anyone-has');
    await page.click('button[type=submit]');
    await page.getByRole('alert').filter({ hasText: 'does not know this token' }).waitFor();
    await axeClean('sign-in');

    await page.fill('#token', admin.token!);
    await page.click('button[type=submit]');
    await page.getByRole('link', { name: 'Test::Shop::Widget', exact: true }).waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("typeplane.token")'), admin.token);
    assert.equal(await page.evaluate('document.cookie'), '');
    assert.ok(!page.url().includes(admin.token!), 'the token is in no URL');
    assert.ok(await page.getByRole('link', { name: 'Other::Team::Thing', exact: true }).isVisible());
    await axeClean('types');
    // Keyboard: the first Tab reaches "Skip to content", which moves the focus to the page's content.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement?.id'), 'main');
  },
);

test(
  "a type's page documents its properties, marks, identifiers, versions and the diff between two versions",
  { skip },
  async () => {
    await page.getByRole('link', { name: 'Test::Shop::Widget', exact: true }).click();
    const row = (name: string) => page.locator(`tr[data-property="${name}"]`);
    await row('Secret').waitFor();
    assert.match(await row('Secret').innerText(), /write-only/);
    const name = await row('Name').innerText();
    for (const word of ['required', 'create-only', 'identifier', 'pattern'])
      assert.match(name, new RegExp(word));
    assert.match(await row('Id').innerText(), /read-only/);
    assert.match(await row('Size').innerText(), /enum: \["S","M","L"\]/);
    assert.match(await row('Shape').innerText(), /Its shape\./);
    const diff = page.locator('section[aria-labelledby=diff-title]');
    await diff.locator('.changes li').first().waitFor();
    assert.match(await diff.innerText(), /safe[\s\S]*Shape/);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download JSON Schema' }).click();
    assert.equal((await download).suggestedFilename(), 'Test.Shop.Widget.json');
    const bicep = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Bicep types' }).click();
    assert.equal((await bicep).suggestedFilename(), 'Test.Shop.types.json');
    await axeClean('type');

    // A manifest (Radius-style) type: its schema's properties, the same marks.
    await go('types', 'Typeplane.Messaging/queues');
    await row('retentionHours').waitFor();
    assert.match(await row('retentionHours').innerText(), /maximum: 336/);
    assert.match(await row('url').innerText(), /read-only/);
    assert.match(await row('name').innerText(), /identifier/);
    await axeClean('type-manifest');
  },
);

test(
  'a resource created through the API appears in the table without reloading; its page shows its model and operations',
  { skip },
  async () => {
    await go('resources', 'Test::Shop::Widget');
    await page.locator('.live.on').waitFor();
    await page.evaluate('window.notReloaded = true');
    const created = await admin.call('POST', '/v1/resources/Test::Shop::Widget', {
      desiredState: { Name: 'gizmo', Color: 'blue', Secret: WRITE_ONLY },
    });
    assert.equal(created.status, 202);
    await page.locator('tr[data-identifier="gizmo"]').waitFor();
    assert.equal(await page.evaluate('window.notReloaded'), true);
    await axeClean('resources');
    await page.fill('#filter', 'Color=red');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('tr[data-identifier="gizmo"]').waitFor({ state: 'detached' });
    await page.fill('#filter', 'Color=blue');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.locator('tr[data-identifier="gizmo"]').waitFor();

    await page.getByRole('link', { name: 'gizmo', exact: true }).click();
    await page.locator('[data-testid=operations] tr', { hasText: 'CREATE' }).waitFor();
    // The model loads on its own: the operations may be shown first.
    await page.waitForFunction(`/Color\\s*blue/.test(document.querySelector('main')?.innerText ?? '')`);
    assert.match(await page.locator('main').innerText(), /Color\s*blue/);
    assert.match(await page.locator('[data-testid=operations]').innerText(), /CREATE[\s\S]*SUCCESS/);
    await axeClean('resource');
  },
);

test('operations arrive live with their progress', { skip }, async () => {
  await go('operations');
  await page.locator('.live.on').waitFor();
  const created = await admin.call('POST', '/v1/resources/Test::Shop::Widget', {
    desiredState: { Name: 'sprocket' },
  });
  await settle(admin, created.body.progressEvent.requestToken);
  await page
    .locator(`tr[data-request="${created.body.progressEvent.requestToken}"]`, { hasText: 'SUCCESS' })
    .waitFor();
  await axeClean('operations');
});

test(
  "a stack's graph turns green as it deploys; NoEcho outputs are ****; drift shows expected and actual",
  { skip },
  async () => {
    const first = await admin.call('PUT', '/v1/stacks/shop?wait=20', {
      template: STACK(false),
      parameters: { Password: NO_ECHO },
    });
    assert.equal(first.body.stack.status, 'CREATE_COMPLETE', JSON.stringify(first.body));
    await go('stacks');
    await page.locator('tr', { hasText: 'shop' }).filter({ hasText: 'CREATE_COMPLETE' }).waitFor();
    await axeClean('stacks');
    await page.getByRole('link', { name: 'shop', exact: true }).click();
    const node = (id: string) => page.locator(`svg.graph [data-node="${id}"]`);
    await node('B').and(page.locator('[data-status=CREATE_COMPLETE]')).waitFor();
    assert.equal(await page.locator('svg.graph .edge').count(), 1, 'A -> B');
    assert.match(await page.locator('[data-testid=outputs]').innerText(), /Password\s*\*\*\*\*/);

    // Deployed while the page is open: the new resource appears and turns green without a reload.
    await page.evaluate('window.notReloaded = true');
    const update = await admin.call('PUT', '/v1/stacks/shop', {
      template: STACK(true),
      parameters: { Password: NO_ECHO },
    });
    assert.equal(update.status, 202, JSON.stringify(update.body));
    await page.locator('svg.graph [data-node="C"][data-status=CREATE_COMPLETE]').waitFor({ timeout: 20_000 });
    await page.locator('.status', { hasText: 'UPDATE_COMPLETE' }).first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('svg.graph .edge').count(), 2);
    assert.equal(await page.evaluate('window.notReloaded'), true);
    assert.ok((await page.locator('[data-testid=events] li').count()) >= 3, 'the events timeline');
    await axeClean('stack');

    const patched = await admin.call('PATCH', '/v1/resources/Test::Shop::Widget/stack-a', {
      patchDocument: [{ op: 'replace', path: '/Color', value: 'green' }],
    });
    assert.equal((await settle(admin, patched.body.progressEvent.requestToken)).operationStatus, 'SUCCESS');
    await page.getByRole('button', { name: 'Detect drift' }).click();
    const drift = page.locator('[data-testid=drift]');
    await drift.waitFor();
    const text = await drift.innerText();
    assert.match(text, /DRIFTED/);
    assert.match(text, /A\s*MODIFIED\s*\/Color\s*red\s*green/);
    await axeClean('stack-drift');

    await page.fill('#plan-template', STACK(true).replace('Color: red', 'Color: purple'));
    await page.fill('#plan-parameters', JSON.stringify({ Password: 'plan-time-value' }));
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const plan = page.locator('[data-testid=plan]');
    await plan.waitFor();
    assert.match(await plan.innerText(), /A\s*Modify\s*\/Color\s*red\s*purple/);
    await axeClean('stack-plan');
  },
);

test(
  'tokens: a created token is shown once, then hidden; a revoked one leaves the list',
  { skip },
  async () => {
    await go('tokens');
    await page.locator('[data-testid=tokens]').waitFor();
    await page.selectOption('#role', 'reader');
    await page.fill('#description', 'made in the console');
    await page.getByRole('button', { name: 'Create token' }).click();
    const shown = page.locator('#created-token');
    await shown.waitFor();
    const token = await shown.inputValue();
    assert.match(token, /^tp_/);
    await axeClean('tokens');
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    assert.ok(!(await page.content()).includes(token), 'the new token is gone from the page');
    const row = page.locator('tr', { hasText: 'made in the console' });
    await row.waitFor();
    const id = await row.getAttribute('data-token');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /Revoke/ }).click();
    await row.waitFor({ state: 'detached' });
    const listed = await admin.call('GET', '/v1/tokens');
    assert.ok(!listed.body.tokens.some((t: { id: string }) => t.id === id));
    assert.equal((await api(admin.url, token).call('GET', '/v1/types')).status, 401);
  },
);

test(
  "a reader scoped to Test::Shop::* sees none of another scope's types, and no Tokens page; revoked, it is signed out",
  { skip },
  async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.equal(await page.evaluate('sessionStorage.getItem("typeplane.token")'), null);
    await page.fill('#token', readerToken);
    await page.click('button[type=submit]');
    await page.getByRole('navigation').getByRole('link', { name: 'Types' }).waitFor();
    await go('types');
    await page.getByRole('link', { name: 'Test::Shop::Widget', exact: true }).waitFor();
    assert.equal(await page.getByText('Other::Team::Thing').count(), 0);
    assert.equal(await page.getByText('Typeplane.Messaging/queues').count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Tokens' }).count(), 0);
    await go('types', 'Other::Team::Thing');
    await page.getByRole('alert').filter({ hasText: 'AccessDenied' }).waitFor();
    assert.ok(!(await page.locator('main').innerText()).includes('A type of another team'));
    await axeClean('reader-denied');

    // Revoked while a page watches: the watch ends (401) and the console signs out by itself.
    await go('resources', 'Test::Shop::Widget');
    await page.locator('.live.on').waitFor();
    assert.equal((await admin.call('DELETE', `/v1/tokens/${readerId}`)).status, 204);
    await page.locator('#token').waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("typeplane.token")'), null);
  },
);

test(
  'no write-only value, NoEcho value or admin token reached the page, its answers or its watch streams; no CSP violation',
  { skip },
  async () => {
    await page.fill('#token', admin.token!);
    await page.click('button[type=submit]');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await go('stacks', 'shop');
    await page.locator('svg.graph').waitFor();
    const dom = await page.content();
    assert.ok(answers.length > 10, `the page's answers were recorded (${answers.length})`);
    const watched = streamed.join('');
    assert.match(watched, /"identifier":"gizmo"/, "the watches' events were recorded");
    for (const secret of [WRITE_ONLY, NO_ECHO, admin.token!]) {
      assert.ok(!dom.includes(secret), `${secret.slice(0, 8)}… is not in the page`);
      assert.ok(!answers.some((a) => a.includes(secret)), `${secret.slice(0, 8)}… is in no answer`);
      assert.ok(!watched.includes(secret), `${secret.slice(0, 8)}… is in no watch event`);
    }
    assert.deepEqual(cspReports, []);
  },
);
