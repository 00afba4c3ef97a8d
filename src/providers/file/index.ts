/**
 * @module The built-in file provider, `Typeplane::Local::File`: a file under a configured root.
 *
 * Every path is checked component by component with lstat, so nothing outside the root is ever
 * created, read or deleted: `..`, absolute paths and symlinks (as a folder or as the file) are refused.
 * Writes are atomic (a temporary file, then a hard link or rename into place). A create records its
 * request token beside the file under `.typeplane/`, so a create re-invoked after a crash recognises
 * its own file instead of answering AlreadyExists.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Model } from '../../engine/types.js';
import type { ErrorCode } from '../../errors.js';
import { defineProvider, progress, type ProviderDefinition } from '../sdk.js';
import type { HandlerEvent } from '../types.js';

export const FILE_TYPE = 'Typeplane::Local::File';
const BOOKKEEPING = '.typeplane';
const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MODE = /^0[0-7]{3}$/;

class Refused extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function createFileProvider(config: { root?: string } = {}): ProviderDefinition {
  let configuredRoot = config.root;
  let resolvedRoot: Promise<string> | undefined;

  const root = (): Promise<string> => {
    if (!configuredRoot) {
      throw new Refused(
        'InvalidTypeConfiguration',
        'the file provider has no root folder: set providers[].config.root',
      );
    }
    resolvedRoot ??= (async () => {
      await fs.mkdir(configuredRoot!, { recursive: true });
      return fs.realpath(configuredRoot!);
    })();
    return resolvedRoot;
  };

  /** The checked absolute path of a resource; its parent folders exist only if `create` is set. */
  const locate = async (
    path: unknown,
    create = false,
  ): Promise<{ base: string; absolute: string; relative: string }> => {
    const base = await root();
    if (typeof path !== 'string' || path === '')
      throw new Refused('InvalidRequest', 'Path must be a relative path under the root');
    const segments = path.split('/');
    if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..') || segments[0] === BOOKKEEPING) {
      throw new Refused(
        'InvalidRequest',
        `Path '${path}' is not allowed: use names of letters, digits, '.', '_' and '-' joined by '/', with no '..'`,
      );
    }
    let current = base;
    for (const [i, segment] of segments.entries()) {
      current = join(current, segment);
      const last = i === segments.length - 1;
      let info;
      try {
        info = await fs.lstat(current);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        if (!last && create) await fs.mkdir(current);
        continue;
      }
      if (info.isSymbolicLink())
        throw new Refused(
          'InvalidRequest',
          `Path '${path}' goes through a symbolic link, which may leave the root`,
        );
      if (!last && !info.isDirectory())
        throw new Refused(
          'InvalidRequest',
          `Path '${path}': '${segments.slice(0, i + 1).join('/')}' is a file, not a folder`,
        );
      if (last && !info.isFile()) throw new Refused('InvalidRequest', `Path '${path}' is not a regular file`);
    }
    return { base, absolute: current, relative: path };
  };

  const markerOf = (base: string, relative: string) =>
    join(base, BOOKKEEPING, 'tokens', createHash('sha256').update(relative).digest('hex'));

  const describe = async (relative: string, absolute: string): Promise<Model | undefined> => {
    let handle;
    try {
      // O_NOFOLLOW: a symlink swapped in after the check is not followed.
      handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const [content, info] = await Promise.all([handle.readFile(), handle.stat()]);
      return {
        Path: relative,
        Content: content.toString('utf8'),
        Mode: `0${(info.mode & 0o777).toString(8).padStart(3, '0')}`,
        Sha256: createHash('sha256').update(content).digest('hex'),
        Size: content.length,
      };
    } finally {
      await handle.close();
    }
  };

  /** Write content to a temporary file beside the target, with its mode. */
  const stage = async (absolute: string, model: Model): Promise<string> => {
    const mode = String(model.Mode ?? '0644');
    if (!MODE.test(mode))
      throw new Refused('InvalidRequest', `Mode '${mode}' must be four octal digits, like 0644`);
    const temp = join(dirname(absolute), `.${randomUUID()}.tmp`);
    await fs.writeFile(temp, String(model.Content ?? ''), { flag: 'wx', mode: parseInt(mode, 8) });
    await fs.chmod(temp, parseInt(mode, 8)); // the umask does not get a say
    return temp;
  };

  const guard = async (work: () => Promise<HandlerEvent>): Promise<HandlerEvent> => {
    try {
      return await work();
    } catch (e) {
      if (e instanceof Refused) return progress.failed(e.code, e.message);
      const code = (e as NodeJS.ErrnoException).code;
      const mapped: ErrorCode =
        code === 'ENOENT'
          ? 'NotFound'
          : code === 'EACCES' || code === 'EPERM'
            ? 'AccessDenied'
            : code === 'ENOSPC'
              ? 'ServiceLimitExceeded'
              : 'GeneralServiceException';
      return progress.failed(mapped, `file provider: ${code ?? (e as Error).message}`);
    }
  };

  return defineProvider({
    name: 'file',
    types: [FILE_TYPE],
    schemas: [new URL('../../../examples/typeplane-local-file.yaml', import.meta.url).pathname],
    configure(settings) {
      if (typeof settings.root !== 'string' || settings.root === '')
        throw new Error('the file provider needs config.root: a folder path');
      configuredRoot = settings.root;
      resolvedRoot = undefined;
    },

    create: ({ desiredState, clientRequestToken }) =>
      guard(async () => {
        const { base, absolute, relative } = await locate(desiredState.Path, true);
        const marker = markerOf(base, relative);
        const existing = await describe(relative, absolute);
        if (existing) {
          const writer = await fs.readFile(marker, 'utf8').catch(() => undefined);
          if (writer === clientRequestToken) return progress.success(existing);
          return progress.failed('AlreadyExists', `${relative} already exists`);
        }
        await fs.mkdir(dirname(marker), { recursive: true });
        await fs.writeFile(marker, clientRequestToken);
        const temp = await stage(absolute, desiredState);
        try {
          await fs.link(temp, absolute); // fails if the file appeared meanwhile: never overwrites
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EEXIST')
            return progress.failed('AlreadyExists', `${relative} already exists`);
          throw e;
        } finally {
          await fs.rm(temp, { force: true });
        }
        return progress.success((await describe(relative, absolute))!);
      }),

    read: ({ desiredState }) =>
      guard(async () => {
        const { absolute, relative } = await locate(desiredState.Path);
        const model = await describe(relative, absolute);
        return model ? progress.success(model) : progress.failed('NotFound', `${relative} does not exist`);
      }),

    update: ({ desiredState }) =>
      guard(async () => {
        const { absolute, relative } = await locate(desiredState.Path);
        if (!(await describe(relative, absolute)))
          return progress.failed('NotFound', `${relative} does not exist`);
        const temp = await stage(absolute, desiredState);
        await fs.rename(temp, absolute); // atomic replace
        return progress.success((await describe(relative, absolute))!);
      }),

    delete: ({ desiredState }) =>
      guard(async () => {
        const { base, absolute, relative } = await locate(desiredState.Path);
        try {
          await fs.unlink(absolute);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT')
            return progress.failed('NotFound', `${relative} does not exist`);
          throw e;
        }
        await fs.rm(markerOf(base, relative), { force: true });
        // Remove the folders the file leaves empty, up to (not including) the root.
        for (let folder = dirname(absolute); folder.startsWith(base + sep); folder = dirname(folder)) {
          try {
            await fs.rmdir(folder);
          } catch {
            break;
          }
        }
        return progress.success();
      }),

    list: ({ nextToken, maxResults }) =>
      guard(async () => {
        const base = await root();
        const limit = Math.min(Math.max(maxResults ?? 100, 1), 1000);
        const files: string[] = [];
        const walk = async (folder: string, prefix: string): Promise<void> => {
          for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
            if (prefix === '' && entry.name === BOOKKEEPING) continue;
            if (entry.name.endsWith('.tmp') && entry.name.startsWith('.')) continue;
            const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
            if (entry.isDirectory()) await walk(join(folder, entry.name), relative);
            else if (entry.isFile()) files.push(relative); // symlinks are neither: never followed
          }
        };
        await walk(base, '');
        files.sort();
        const after =
          nextToken === undefined ? undefined : Buffer.from(nextToken, 'base64url').toString('utf8');
        const remaining = after === undefined ? files : files.filter((f) => f > after);
        const page = remaining.slice(0, limit);
        const models: Model[] = [];
        for (const relative of page) {
          const model = await describe(relative, join(base, ...relative.split('/')));
          if (model) models.push(model);
        }
        const more = remaining.length > page.length;
        return progress.list(models, more ? Buffer.from(page.at(-1)!, 'utf8').toString('base64url') : null);
      }),
  });
}
