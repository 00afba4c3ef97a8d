/**
 * Cancelling a running operation through Cloud Control (a provider whose create takes two steps a
 * second apart, in a real server process), and ListResourceRequests filtered by Operations and
 * OperationStatuses.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CancelResourceRequestCommand,
  ConcurrentModificationException,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourceRequestsCommand,
  RequestTokenNotFoundException,
  waitUntilResourceRequestSuccess,
  type CloudControlClient,
  type ProgressEvent,
} from '@aws-sdk/client-cloudcontrol';
import { FAST_WAITER, cloudControl, issueKeys } from '../helpers/cloudcontrol.js';
import { api, spawnServer, tempDir } from '../helpers/service.js';

const NOTE = 'Test::Slow::Note';
const slowProvider = fileURLToPath(new URL('../fixtures/slow-file-provider/provider.ts', import.meta.url));
const files = tempDir();
let child: ChildProcess;
let cc: CloudControlClient;

before(async () => {
  const server = await spawnServer(tempDir(), ['--provider', slowProvider], { SLOW_PROVIDER_ROOT: files });
  child = server.child;
  const keys = await issueKeys(api(server.url, server.token), 'writer');
  // One attempt: ConcurrentModificationException is a server fault the SDK would retry.
  cc = cloudControl(server.url, keys, { maxAttempts: 1 });
});
after(() => {
  cc?.destroy();
  child?.kill('SIGTERM');
});

async function requests(filter: {
  Operations?: string[];
  OperationStatuses?: string[];
}): Promise<ProgressEvent[]> {
  const events: ProgressEvent[] = [];
  let NextToken: string | undefined;
  do {
    const page = await cc.send(
      new ListResourceRequestsCommand({
        ResourceRequestStatusFilter: filter as never,
        MaxResults: 2,
        NextToken,
      }),
    );
    events.push(...page.ResourceRequestStatusSummaries!);
    NextToken = page.NextToken;
  } while (NextToken);
  return events;
}

test('a running create is cancelled: CANCEL_COMPLETE, the handler never finishes, a second cancel is refused', async () => {
  const { ProgressEvent: started } = await cc.send(
    new CreateResourceCommand({
      TypeName: NOTE,
      DesiredState: JSON.stringify({ Name: 'halted', Text: 'x' }),
    }),
  );
  const token = started!.RequestToken!;
  const { ProgressEvent: cancelling } = await cc.send(
    new CancelResourceRequestCommand({ RequestToken: token }),
  );
  assert.equal(cancelling!.RequestToken, token);
  assert.ok(['CANCEL_IN_PROGRESS', 'CANCEL_COMPLETE'].includes(cancelling!.OperationStatus!));
  // The waiter treats CANCEL_COMPLETE as a failure, as against AWS.
  await assert.rejects(
    waitUntilResourceRequestSuccess({ client: cc, ...FAST_WAITER }, { RequestToken: token }),
    /CANCEL_COMPLETE/,
  );
  const { ProgressEvent: done } = await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }));
  assert.equal(done!.OperationStatus, 'CANCEL_COMPLETE');
  // The second step (a second later) never ran: no file was written.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(existsSync(join(files, 'halted.txt')), false);
  await assert.rejects(
    cc.send(new CancelResourceRequestCommand({ RequestToken: token })),
    (e: unknown) => e instanceof ConcurrentModificationException && e.$metadata.httpStatusCode === 500,
  );
  await assert.rejects(
    cc.send(new CancelResourceRequestCommand({ RequestToken: 'no-such-request' })),
    RequestTokenNotFoundException,
  );
});

test('ListResourceRequests keeps the operations and statuses asked for, across pages', async () => {
  const { ProgressEvent: made } = await cc.send(
    new CreateResourceCommand({ TypeName: NOTE, DesiredState: JSON.stringify({ Name: 'kept', Text: 'y' }) }),
  );
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: made!.RequestToken! },
  );
  const { ProgressEvent: removal } = await cc.send(
    new DeleteResourceCommand({ TypeName: NOTE, Identifier: 'kept' }),
  );
  await waitUntilResourceRequestSuccess(
    { client: cc, ...FAST_WAITER },
    { RequestToken: removal!.RequestToken! },
  );

  const cancelled = await requests({ OperationStatuses: ['CANCEL_COMPLETE'] });
  assert.ok(cancelled.length >= 1);
  for (const e of cancelled) assert.equal(e.OperationStatus, 'CANCEL_COMPLETE');

  const creates = await requests({ Operations: ['CREATE'] });
  const tokens = creates.map((e) => e.RequestToken);
  assert.ok(tokens.includes(made!.RequestToken));
  assert.ok(!tokens.includes(removal!.RequestToken));
  for (const e of creates) assert.equal(e.Operation, 'CREATE');

  const deletesDone = await requests({ Operations: ['DELETE'], OperationStatuses: ['SUCCESS'] });
  assert.deepEqual(
    deletesDone.map((e) => e.RequestToken),
    [removal!.RequestToken],
  );
  const all = await requests({});
  assert.ok(all.length >= 3);

  await assert.rejects(
    cc.send(
      new ListResourceRequestsCommand({ ResourceRequestStatusFilter: { Operations: ['READ' as never] } }),
    ),
    /Operations must be a list of CREATE, UPDATE, DELETE/,
  );
});
