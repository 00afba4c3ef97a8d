/**
 * @module GET /v1/backup — a backup of the whole store, streamed as it is read (admin only: it holds
 * every record, token hashes and sealed values included; the auth hook checks the role). The file's
 * format is `src/backup/format.ts`'s; `typeplane backup` saves it and `typeplane restore` reads it.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Backups } from '../../backup/index.js';

export const BACKUP_MEDIA_TYPE = 'application/vnd.typeplane.backup';

export async function backupRoutes(app: FastifyInstance, { backups }: { backups: Backups }): Promise<void> {
  // No HEAD: it would take a whole snapshot to send none of it.
  app.get('/v1/backup', { exposeHeadRoute: false }, async (request, reply) => {
    const backup = await backups.take();
    const { store, schemaVersion, keyId, createdAt } = backup.header;
    const log = request.log.child({ store, schemaVersion, keyId, by: request.principal?.tokenId });
    log.info('backup started');
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) log.info('backup sent');
      else log.warn('backup stopped before its end (the client went away, or reading the store failed)');
      void backup.release();
    });
    const stamp = createdAt.replace(/[-:]|\.\d+/g, '');
    return reply
      .header('content-type', BACKUP_MEDIA_TYPE)
      .header('content-disposition', `attachment; filename="typeplane-${store}-${stamp}.backup"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(backup.body));
  });
}
