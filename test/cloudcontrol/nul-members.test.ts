/**
 * No name, identifier or token holds U+0000, and PostgreSQL text cannot: a Cloud Control member
 * holding one is InvalidRequestException naming the member, the same on both stores (the /v1 API
 * refuses it in a path alike), never an internal failure.
 */
import assert from 'node:assert/strict';
import { issueKeys, signedHeaders } from '../helpers/cloudcontrol.js';
import { eachStoreService } from '../helpers/each-store.js';
import { WIDGET, WIDGET_TYPE } from '../helpers/service.js';

const NUL = '\u0000';

eachStoreService('a member holding U+0000 is refused by name, not failed on', async (svc) => {
  assert.equal((await svc.call('POST', '/v1/types', WIDGET)).status, 201);
  const keys = await issueKeys(svc, 'writer');
  const cases: [operation: string, member: string, body: Record<string, unknown>][] = [
    ['GetResource', 'TypeName', { TypeName: `Test${NUL}`, Identifier: 'w1' }],
    ['GetResource', 'Identifier', { TypeName: WIDGET_TYPE, Identifier: `w${NUL}1` }],
    ['DeleteResource', 'Identifier', { TypeName: WIDGET_TYPE, Identifier: `${NUL}` }],
    ['GetResourceRequestStatus', 'RequestToken', { RequestToken: `r${NUL}` }],
    ['CancelResourceRequest', 'RequestToken', { RequestToken: `${NUL}x` }],
    ['ListResources', 'NextToken', { TypeName: WIDGET_TYPE, NextToken: `a${NUL}` }],
  ];
  for (const [operation, member, members] of cases) {
    const body = JSON.stringify(members);
    const res = await fetch(svc.url, {
      method: 'POST',
      headers: signedHeaders({ keys, url: svc.url, operation, body }),
      body,
    });
    const answer = (await res.json()) as { __type: string; message: string };
    assert.equal(res.status, 400, `${operation} ${member}: ${JSON.stringify(answer)}`);
    assert.equal(answer.__type, 'InvalidRequestException');
    assert.match(answer.message, new RegExp(`^${member} contains U\\+0000`));
  }
  // The server is well, and a plain request still answered.
  const body = JSON.stringify({ TypeName: WIDGET_TYPE });
  const listed = await fetch(svc.url, {
    method: 'POST',
    headers: signedHeaders({ keys, url: svc.url, operation: 'ListResources', body }),
    body,
  });
  assert.equal(listed.status, 200);
});
