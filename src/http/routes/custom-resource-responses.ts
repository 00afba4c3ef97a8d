/**
 * @module PUT /v1/custom-resource-responses/{token} — the ResponseURL of a custom resource request:
 * where its handler PUTs the response (see src/stacks/custom-resources). The URL is the credential
 * (one-time, unguessable, as CloudFormation's pre-signed S3 URL): no API token is asked for. The body
 * is read whatever its Content-Type (AWS's cfn-response helper sends an empty one), 4096 bytes at most.
 */
import type { FastifyInstance } from 'fastify';
import { CustomResources, MAX_RESPONSE_BYTES, RESPONSE_ROUTE } from '../../stacks/custom-resources/index.js';

export async function customResourceRoutes(
  app: FastifyInstance,
  { customResources }: { customResources: CustomResources },
): Promise<void> {
  // In this plugin's scope alone: any Content-Type, or none, is the raw body.
  app.removeAllContentTypeParsers();
  // cfn-response sends `Content-Type: ` (empty), which the framework would refuse (415): it is none.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['content-type'] === '') delete request.headers['content-type'];
    done();
  });
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_RESPONSE_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.put<{ Params: { token: string } }>(
    RESPONSE_ROUTE,
    { bodyLimit: MAX_RESPONSE_BYTES, config: { authentication: 'url' } },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      await customResources.respond(request.params.token, body);
      return reply.status(200).send();
    },
  );
}
