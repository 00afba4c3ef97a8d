/**
 * @module What the bare servers (bench/bare-server.ts on SQLite, bench/bare-pg-server.ts on
 * PostgreSQL) share: the API shape they answer — a POST inserts the desired state as the resource and
 * answers a SUCCESS ProgressEvent, a GET selects it — over storage of their own, their arguments, and
 * their start (`listening on http://host:port` on stdout) and stop (SIGTERM/SIGINT).
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

/** One bare server's table: one statement each. */
export interface BareStorage {
  /** Inserts a resource; false when one with its key exists. */
  insert(
    typeName: string,
    identifier: string,
    propertiesJson: string,
    clientToken: string | null,
    createdAt: string,
  ): boolean | Promise<boolean>;
  /** A resource's properties as JSON text, or undefined when there is none. */
  select(typeName: string, identifier: string): string | undefined | Promise<string | undefined>;
  close(): void | Promise<void>;
}

/** `--name value` from the command line; without one and no fallback, the process exits (2). */
export function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : fallback;
  if (value === undefined) {
    process.stderr.write(`${process.argv[1]}: --${name} is required\n`);
    process.exit(2);
  }
  return value;
}

/** Serves the API shape over `storage` on --host and --port until SIGTERM or SIGINT. */
export async function serveBare(storage: BareStorage): Promise<void> {
  const app = Fastify();

  app.post<{
    Params: { typeName: string };
    Body: { desiredState?: Record<string, unknown>; clientToken?: string };
  }>('/v1/resources/:typeName', async (request, reply) => {
    const { typeName } = request.params;
    const desiredState = request.body?.desiredState;
    const identifier = desiredState?.Name;
    if (typeof identifier !== 'string')
      return reply.status(400).send({ code: 'InvalidRequest', message: 'desiredState.Name is required' });
    const now = new Date().toISOString();
    const json = JSON.stringify(desiredState);
    if (!(await storage.insert(typeName, identifier, json, request.body.clientToken ?? null, now)))
      return reply.status(409).send({ code: 'AlreadyExists', message: `${identifier} exists` });
    return reply.status(202).send({
      progressEvent: {
        typeName,
        requestToken: randomUUID(),
        operation: 'CREATE',
        operationStatus: 'SUCCESS',
        eventTime: now,
        identifier,
        resourceModel: desiredState,
      },
    });
  });

  app.get<{ Params: { typeName: string; identifier: string } }>(
    '/v1/resources/:typeName/:identifier',
    async (request, reply) => {
      const { typeName, identifier } = request.params;
      const json = await storage.select(typeName, identifier);
      if (json === undefined)
        return reply.status(404).send({ code: 'NotFound', message: `${identifier} does not exist` });
      return { typeName, identifier, properties: JSON.parse(json) as unknown };
    },
  );

  await app.listen({ host: arg('host', '127.0.0.1'), port: Number(arg('port', '0')) });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  process.stdout.write(`listening on http://${address.address}:${address.port}\n`);

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void app
      .close()
      .then(() => storage.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
