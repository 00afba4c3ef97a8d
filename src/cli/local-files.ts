/**
 * @module Every local file a command reads goes through {@link readLocal}: a regular file only (a
 * FIFO would hang the command, a device never end) and at most the bound of what it holds, refused
 * before it is read whole, with what was refused, where, and how to go on.
 */
import { formatBytes, readBoundedFile } from '../schema/bounded-file.js';
import { UsageError } from './usage.js';

/** What a file holds: named in messages, with its bound and what to do with a larger one. */
export interface FileKind {
  what: string;
  maxBytes: number;
  fix: string;
}

const MiB = 1024 * 1024;

/** The bounds of the files commands read; each is the server's for what the file becomes (docs/api.md). */
export const FILES = {
  template: {
    what: 'a stack template',
    maxBytes: MiB,
    fix: 'split it into several stacks (exports and Fn::ImportValue connect them)',
  },
  parameters: {
    what: 'a parameters file',
    maxBytes: MiB,
    fix: 'pass large values as files the template reads elsewhere, or fewer parameters',
  },
  typeDocument: {
    what: 'a type document',
    maxBytes: 10 * MiB,
    fix: 'split it into one file per resource type',
  },
  document: {
    what: 'a JSON or YAML document',
    maxBytes: MiB,
    fix: 'a resource request body is at most 1 MiB; send less',
  },
  pem: { what: 'a PEM file', maxBytes: MiB, fix: 'give the certificate chain or key alone' },
  config: { what: 'a JSON settings file', maxBytes: MiB, fix: 'keep only the settings the command needs' },
} satisfies Record<string, FileKind>;

/** The file's text; a missing, special or oversized file is a usage error saying so. */
export function readLocal(path: string, kind: FileKind): string {
  return readLocalBytes(path, kind).toString('utf8');
}

/** The file's bytes (a key or certificate), bounded as {@link readLocal}. */
export function readLocalBytes(path: string, kind: FileKind): Buffer {
  const content = readBoundedFile(path, kind.maxBytes);
  if (typeof content === 'number')
    throw new UsageError(
      `${path} is ${content > kind.maxBytes + 1 ? `${formatBytes(content)}, ` : ''}over the ${formatBytes(kind.maxBytes)} limit of ${kind.what}; ${kind.fix}`,
    );
  if (content instanceof Error) {
    if (/: ENOENT$/.test(content.message)) throw new UsageError(`no such file: ${path}`);
    throw new UsageError(
      `${content.message}; ${kind.what} is read from a regular file (save what a pipe or device gives to one first)`,
    );
  }
  return content;
}
