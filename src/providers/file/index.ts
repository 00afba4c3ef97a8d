/**
 * @module The built-in file provider, `Typeplane::Local::File`: a file under a configured root.
 *
 * Safety: the root is resolved once with realpath; a Path is refused unless it is relative, free of
 * `..`, `.`, empty segments, backslashes and NUL, and every component along it is checked with lstat
 * (a symbolic link anywhere — a folder or the file itself — is refused, never followed). Files are
 * opened with O_NOFOLLOW, so a link swapped in after the check is not followed either.
 *
 * Writes are atomic: the content goes to a temporary file in the same folder (created with O_EXCL,
 * given its mode, synced), which then takes the file's name — by a hard link for create, which never
 * overwrites, and by rename for update.
 *
 * Bookkeeping lives in `<root>/.typeplane/`, one small JSON record per entry (no shared index, so no
 * locking): `files/<sha256(Path)>` holds the request token, SHA-256 and mode a create wrote, so a
 * create re-invoked after a crash recognises its own file instead of answering AlreadyExists;
 * `folders/<sha256(folder)>` holds the device and inode of each parent folder a create made, so
 * delete removes only those (when empty), never folders made by hand. Every name starting with
 * `.typeplane` belongs to the provider: refused as a Path segment, never listed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants, promises as fs, type BigIntStats, type Stats } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Model } from '../../model/index.js';
import type { ErrorCode } from '../../errors.js';
import { defineProvider, HandlerError, progress, type ProviderDefinition } from '../sdk.js';
import type { HandlerEvent, HandlerLogger } from '../../handler/index.js';

export const FILE_TYPE = 'Typeplane::Local::File';
/** Names starting with this are the provider's own (bookkeeping, temporary files). */
export const RESERVED_PREFIX = '.typeplane';

const SEGMENT = /^[A-Za-z0-9._-]+$/;
const MODE = /^0[0-7]{3}$/;
const MAX_PATH_LENGTH = 1024;
/** The schema allows 1,048,576 characters of Content: at most 4 bytes each in UTF-8. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const TOKEN_PREFIX = 'f1.';
const CREATE_ATTEMPTS = 3;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

type RecordKind = 'files' | 'folders';
type Location = {
  base: string;
  relative: string;
  absolute: string;
  /** What is at the path: a regular file, nothing, or something else (a folder, a socket …). */
  kind: 'file' | 'missing' | 'other';
};

const refused = (message: string) => new HandlerError('InvalidRequest', message);
const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | undefined)?.code;
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const formatMode = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/** The segments of a valid Path, or a refusal saying what is wrong with it. */
function checkPath(path: unknown): string[] {
  if (typeof path !== 'string' || path === '')
    throw refused('Path must be a non-empty path relative to the root');
  const shown = JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
  if (path.length > MAX_PATH_LENGTH)
    throw refused(`Path ${shown} is longer than ${MAX_PATH_LENGTH} characters`);
  if (path.includes('\0')) throw refused(`Path ${shown} contains NUL`);
  if (path.includes('\\')) throw refused(`Path ${shown} contains a backslash; separate folders with '/'`);
  if (path.startsWith('/')) throw refused(`Path ${shown} is absolute; give it relative to the root`);
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '..') throw refused(`Path ${shown} has a '..' segment, which could leave the root`);
    if (segment === '' || segment === '.') throw refused(`Path ${shown} has an empty or '.' segment`);
    if (!SEGMENT.test(segment))
      throw refused(`Path ${shown}: use names of letters, digits, '.', '_' and '-' joined by '/'`);
    if (segment.startsWith(RESERVED_PREFIX))
      throw refused(`Path ${shown}: names starting with '${RESERVED_PREFIX}' are the provider's own`);
  }
  return segments;
}

function isValidPath(path: string): boolean {
  try {
    checkPath(path);
    return true;
  } catch {
    return false;
  }
}

function contentOf(model: Model): Buffer {
  const content = model.Content ?? '';
  if (typeof content !== 'string') throw refused('Content must be a string');
  return Buffer.from(content, 'utf8');
}

function modeOf(model: Model): number {
  const mode = model.Mode ?? '0644';
  if (typeof mode !== 'string' || !MODE.test(mode))
    throw refused(`Mode ${JSON.stringify(mode)} must be four octal digits, like 0644`);
  return parseInt(mode, 8);
}

function modelOf(relative: string, content: Buffer, mode: number): Model {
  return {
    Path: relative,
    Content: content.toString('utf8'),
    Mode: formatMode(mode),
    Sha256: sha256(content),
    Size: content.length,
  };
}

function errorCodeOf(errno: string | undefined): ErrorCode {
  switch (errno) {
    case 'ENOENT':
      return 'NotFound';
    case 'EACCES':
    case 'EPERM':
      return 'AccessDenied';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'ServiceLimitExceeded';
    case 'ELOOP': // O_NOFOLLOW met a symbolic link
      return 'InvalidRequest';
    default:
      return 'GeneralServiceException';
  }
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}

const identityOf = (info: BigIntStats) => `${info.dev}:${info.ino}`;

/** Make a folder's entries durable (best effort: not every platform can open a folder). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await fs.open(folder, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* durability is a bonus here, not a requirement */
  }
}

/**
 * Write `data` to a temporary file in `folder` (O_EXCL, O_NOFOLLOW; the mode set exactly, whatever
 * the umask; synced), then give it the `target` name: `link` never replaces an existing file (EEXIST),
 * `replace` renames over it atomically.
 */
async function commitFile(
  folder: string,
  data: Buffer,
  mode: number,
  target: string,
  how: 'link' | 'replace',
): Promise<void> {
  const temp = join(folder, `${RESERVED_PREFIX}-${randomUUID()}.tmp`);
  const handle = await fs.open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
    mode,
  );
  try {
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    if (how === 'replace') {
      await fs.rename(temp, target);
    } else {
      try {
        await fs.link(temp, target);
      } catch (e) {
        const errno = errnoOf(e);
        // A file system without hard links: check, then rename (not race-free, but still atomic).
        if (errno !== 'ENOTSUP' && errno !== 'EOPNOTSUPP') throw e;
        if (await lstatOrUndefined(target))
          throw Object.assign(new Error(`${target} exists`), { code: 'EEXIST' });
        await fs.rename(temp, target);
      }
    }
    await syncFolder(folder);
  } finally {
    await fs.rm(temp, { force: true });
  }
}

export function createFileProvider(config: { root?: string } = {}): ProviderDefinition {
  let configuredRoot = config.root;
  let resolvedRoot: Promise<string> | undefined;

  /** The real path of the root, made if missing; resolved once. */
  const root = (): Promise<string> => {
    const wanted = configuredRoot;
    if (wanted === undefined || wanted === '') {
      return Promise.reject(
        new HandlerError(
          'InvalidTypeConfiguration',
          'the file provider has no root folder: set config.root (providers[].config.root)',
        ),
      );
    }
    if (resolvedRoot) return resolvedRoot;
    const resolving = (async () => {
      try {
        const absolute = resolve(wanted);
        await fs.mkdir(absolute, { recursive: true });
        const real = await fs.realpath(absolute);
        if (!(await fs.stat(real)).isDirectory()) throw new Error('not a folder');
        return real;
      } catch (e) {
        throw new HandlerError(
          'InvalidTypeConfiguration',
          `the file provider's root ${wanted} cannot be used: ${errnoOf(e) ?? (e as Error).message}`,
        );
      }
    })();
    resolvedRoot = resolving;
    // A root that could not be used is tried again next time (it may have been fixed).
    resolving.catch(() => {
      if (resolvedRoot === resolving) resolvedRoot = undefined;
    });
    return resolving;
  };

  // ---- Bookkeeping: <root>/.typeplane/{files,folders}/<sha256(path)> --------------------------

  /** The bookkeeping folder of a kind: made if `make`; refused if anything along it is not a plain folder. */
  const bookFolder = async (base: string, kind: RecordKind, make: boolean): Promise<string | undefined> => {
    let current = base;
    for (const name of [RESERVED_PREFIX, kind]) {
      current = join(current, name);
      let info = await lstatOrUndefined(current);
      if (!info) {
        if (!make) return undefined;
        await fs.mkdir(current, { mode: 0o700 }).catch((e: unknown) => {
          if (errnoOf(e) !== 'EEXIST') throw e;
        });
        info = await fs.lstat(current);
      }
      if (info.isSymbolicLink() || !info.isDirectory()) {
        throw new HandlerError(
          'GeneralServiceException',
          `the file provider's bookkeeping folder ${current} is not a plain folder; refusing to use it`,
        );
      }
    }
    return current;
  };

  const writeRecord = async (base: string, kind: RecordKind, key: string, value: object) => {
    const folder = (await bookFolder(base, kind, true))!;
    const data = Buffer.from(JSON.stringify(value));
    await commitFile(folder, data, 0o600, join(folder, sha256(key)), 'replace');
  };

  const readRecord = async (
    base: string,
    kind: RecordKind,
    key: string,
  ): Promise<Record<string, unknown> | undefined> => {
    const folder = await bookFolder(base, kind, false);
    if (!folder) return undefined;
    let handle;
    try {
      handle = await fs.open(join(folder, sha256(key)), constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ELOOP') return undefined;
      throw e;
    }
    try {
      const value: unknown = JSON.parse((await handle.readFile()).toString('utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined; // a torn or foreign record is no record
    } finally {
      await handle.close();
    }
  };

  const removeRecord = async (base: string, kind: RecordKind, key: string) => {
    const folder = await bookFolder(base, kind, false);
    if (folder) await fs.rm(join(folder, sha256(key)), { force: true });
  };

  // ---- Paths ----------------------------------------------------------------------------------

  /**
   * Check a Path component by component with lstat. With `makeFolders`, missing parent folders are
   * made (and recorded as the provider's). A symbolic link anywhere is refused.
   */
  const locate = async (path: unknown, makeFolders = false): Promise<Location> => {
    const segments = checkPath(path);
    const base = await root();
    const relative = segments.join('/');
    let current = base;
    for (const [i, segment] of segments.entries()) {
      current = join(current, segment);
      const last = i === segments.length - 1;
      const prefix = segments.slice(0, i + 1).join('/');
      let info = await lstatOrUndefined(current);
      if (!info && !last && makeFolders) {
        await makeFolder(base, current, prefix);
        info = await lstatOrUndefined(current);
      }
      if (!info) return { base, relative, absolute: join(base, ...segments), kind: 'missing' };
      if (info.isSymbolicLink()) {
        throw refused(
          `Path '${relative}' goes through a symbolic link ('${prefix}'), which could lead out of the root; links are never followed`,
        );
      }
      if (!last && !info.isDirectory()) throw refused(`Path '${relative}': '${prefix}' is not a folder`);
      if (last) return { base, relative, absolute: current, kind: info.isFile() ? 'file' : 'other' };
    }
    throw refused(`Path '${relative}' is empty`); // unreachable: checkPath gives at least one segment
  };

  const makeFolder = async (base: string, absolute: string, relative: string) => {
    try {
      await fs.mkdir(absolute);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') return; // made meanwhile by someone else: not ours
      throw e;
    }
    const info = await fs.lstat(absolute, { bigint: true });
    await writeRecord(base, 'folders', relative, { path: relative, id: identityOf(info) });
  };

  /** Every component of a folder under the root is a plain folder (no links). */
  const plainFolder = async (base: string, relative: string): Promise<BigIntStats | undefined> => {
    let current = base;
    let info: BigIntStats | undefined;
    for (const segment of relative.split('/')) {
      current = join(current, segment);
      try {
        info = await fs.lstat(current, { bigint: true });
      } catch {
        return undefined;
      }
      if (info.isSymbolicLink() || !info.isDirectory()) return undefined;
    }
    return info;
  };

  /** Remove the empty folders a create made for `relative`, deepest first, up to (not including) the root. */
  const removeEmptyFolders = async (base: string, relative: string) => {
    for (let folder = posix.dirname(relative); folder !== '.'; folder = posix.dirname(folder)) {
      const record = await readRecord(base, 'folders', folder);
      if (!record) return; // made by hand (or already gone): left alone, and so are its parents
      const info = await plainFolder(base, folder);
      if (!info) {
        if (!(await lstatOrUndefined(join(base, ...folder.split('/'))))) {
          await removeRecord(base, 'folders', folder); // gone already: its parent may be ours and empty
          continue;
        }
        return;
      }
      if (identityOf(info) !== record.id) return; // another folder by that name now: not ours
      try {
        await fs.rmdir(join(base, ...folder.split('/')));
      } catch {
        return; // not empty (or not ours to remove)
      }
      await removeRecord(base, 'folders', folder);
    }
  };

  /** The model of the file at a checked location, read without following links; undefined if absent. */
  const describe = async (location: Location): Promise<Model | undefined> => {
    const { relative, absolute } = location;
    let handle;
    try {
      handle = await fs.open(absolute, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return undefined;
      if (errnoOf(e) === 'ELOOP')
        throw refused(`Path '${relative}' is a symbolic link; links are never followed`);
      throw e;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return undefined;
      const tooLarge = () =>
        new HandlerError(
          'ServiceLimitExceeded',
          `${relative} is larger than ${MAX_FILE_BYTES} bytes, more than a resource's Content can hold`,
        );
      if (info.size > MAX_FILE_BYTES) throw tooLarge();
      const content = await handle.readFile();
      if (content.length > MAX_FILE_BYTES) throw tooLarge();
      return modelOf(relative, content, info.mode);
    } finally {
      await handle.close();
    }
  };

  // ---- Handlers -------------------------------------------------------------------------------

  const guard = async (work: () => Promise<HandlerEvent>): Promise<HandlerEvent> => {
    try {
      return await work();
    } catch (e) {
      if (e instanceof HandlerError) return progress.failed(e.code, e.message);
      const errno = errnoOf(e);
      return progress.failed(errorCodeOf(errno), `file provider: ${(e as Error)?.message ?? String(e)}`);
    }
  };

  /** A create found a file at its path: its own (written by this request token) or AlreadyExists. */
  const existing = async (location: Location, token: string): Promise<HandlerEvent> => {
    const alreadyExists = progress.failed(
      'AlreadyExists',
      `${location.relative} already exists under the root`,
    );
    if (location.kind !== 'file') return alreadyExists;
    const record = await readRecord(location.base, 'files', location.relative);
    if (record?.token !== token) return alreadyExists;
    const model = await describe(location);
    if (!model) throw Object.assign(new Error(`${location.relative} vanished`), { code: 'ENOENT' });
    // Our marker, and the file is still what we wrote: a re-invocation after a crash.
    return record.sha256 === model.Sha256 && record.mode === model.Mode
      ? progress.success(model)
      : alreadyExists;
  };

  const createOnce = async (desired: Model, token: string): Promise<HandlerEvent> => {
    const content = contentOf(desired);
    const mode = modeOf(desired);
    const location = await locate(desired.Path, true);
    if (location.kind !== 'missing') return existing(location, token);
    const { base, relative, absolute } = location;
    // The marker first: a crash after the file appears must still find it.
    await writeRecord(base, 'files', relative, {
      path: relative,
      token,
      sha256: sha256(content),
      mode: formatMode(mode),
    });
    try {
      await commitFile(dirname(absolute), content, mode, absolute, 'link');
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') return existing({ ...location, kind: 'file' }, token);
      throw e;
    }
    return progress.success(modelOf(relative, content, mode));
  };

  const listPage = async (
    nextToken: string | undefined,
    maxResults: number | undefined,
    logger: HandlerLogger,
  ): Promise<HandlerEvent> => {
    const base = await root();
    const requested =
      typeof maxResults === 'number' && Number.isFinite(maxResults)
        ? Math.trunc(maxResults)
        : DEFAULT_PAGE_SIZE;
    const limit = Math.min(Math.max(requested, 1), MAX_PAGE_SIZE);
    let after: string | undefined;
    if (nextToken !== undefined) {
      after = nextToken.startsWith(TOKEN_PREFIX)
        ? Buffer.from(nextToken.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8')
        : undefined;
      if (after === undefined || !isValidPath(after))
        throw refused('nextToken is not one this provider handed out');
    }
    const paths: string[] = [];
    const walk = async (folder: string, prefix: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(folder, { withFileTypes: true });
      } catch (e) {
        if (prefix !== '' && (errnoOf(e) === 'ENOENT' || errnoOf(e) === 'ENOTDIR')) return; // removed meanwhile
        throw e;
      }
      for (const entry of entries) {
        if (entry.name.startsWith(RESERVED_PREFIX)) continue; // our own
        const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        if (!isValidPath(relative)) continue; // cannot be addressed as a resource
        // Symbolic links are neither files nor folders here: never followed, never listed.
        if (entry.isDirectory()) await walk(join(folder, entry.name), relative);
        else if (entry.isFile()) paths.push(relative);
      }
    };
    await walk(base, '');
    paths.sort();
    const remaining = after === undefined ? paths : paths.filter((p) => p > after);
    const page = remaining.slice(0, limit);
    const models: Model[] = [];
    for (const path of page) {
      try {
        const location = await locate(path); // checked again: nothing swapped in since the walk
        const model = location.kind === 'file' ? await describe(location) : undefined;
        if (model) models.push(model);
      } catch (e) {
        if (errnoOf(e) === 'ENOENT') continue;
        logger.warn('file provider: a file under the root is not listed', {
          path,
          reason: (e as Error).message,
        });
      }
    }
    const more = remaining.length > page.length;
    return progress.list(
      models,
      more ? TOKEN_PREFIX + Buffer.from(page.at(-1)!, 'utf8').toString('base64url') : null,
    );
  };

  return defineProvider({
    name: 'file',
    types: [FILE_TYPE],
    schemas: [fileURLToPath(new URL('../../../examples/typeplane-local-file.yaml', import.meta.url))],

    configure(settings) {
      if (settings.root === undefined) return; // the root given at construction (if any) stands
      if (typeof settings.root !== 'string' || settings.root === '')
        throw new Error('the file provider needs config.root to be a folder path');
      configuredRoot = settings.root;
      resolvedRoot = undefined;
    },

    create: ({ desiredState, clientRequestToken }) =>
      guard(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await createOnce(desiredState, clientRequestToken);
          } catch (e) {
            // A folder on the way was removed meanwhile (a delete of its last file): try again.
            if (errnoOf(e) === 'ENOENT' && attempt < CREATE_ATTEMPTS) continue;
            throw e;
          }
        }
      }),

    read: ({ desiredState }) =>
      guard(async () => {
        const location = await locate(desiredState.Path);
        const model = location.kind === 'file' ? await describe(location) : undefined;
        return model
          ? progress.success(model)
          : progress.failed('NotFound', `${location.relative} does not exist under the root`);
      }),

    update: ({ desiredState }) =>
      guard(async () => {
        const content = contentOf(desiredState);
        const mode = modeOf(desiredState);
        const location = await locate(desiredState.Path);
        if (location.kind !== 'file')
          return progress.failed('NotFound', `${location.relative} does not exist under the root`);
        await commitFile(dirname(location.absolute), content, mode, location.absolute, 'replace');
        return progress.success(modelOf(location.relative, content, mode));
      }),

    delete: ({ desiredState }) =>
      guard(async () => {
        const { base, relative, absolute, kind } = await locate(desiredState.Path);
        if (kind === 'other')
          return progress.failed('NotFound', `${relative} is not a file: nothing of ours to delete`);
        // The marker first (a bookkeeping folder that is not ours stops us before anything changes);
        // also when the file is gone already: a delete re-invoked after a crash finishes the clean-up.
        await removeRecord(base, 'files', relative);
        let deleted = false;
        if (kind === 'file') {
          try {
            await fs.unlink(absolute);
            deleted = true;
            await syncFolder(dirname(absolute));
          } catch (e) {
            if (errnoOf(e) !== 'ENOENT') throw e;
          }
        }
        await removeEmptyFolders(base, relative);
        return deleted
          ? progress.success()
          : progress.failed('NotFound', `${relative} does not exist under the root`);
      }),

    list: ({ nextToken, maxResults, logger }) => guard(() => listPage(nextToken, maxResults, logger)),
  });
}
