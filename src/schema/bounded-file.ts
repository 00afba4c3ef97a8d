/**
 * @module One bounded reader for every local file the CLI and `serve --types` open: only a regular
 * file is read, and never more than a limit, however large the file claims or turns out to be.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/**
 * The file's bytes, its size when over `maxBytes`, or why not. Only a regular file is read (a FIFO
 * would block forever, a device such as /dev/zero never end), judged on the open descriptor, so a
 * symlink or a swap after the check changes nothing; opening does not block (O_NONBLOCK), and the
 * limit holds while reading, whatever `stat` said the size was.
 */
export function readBoundedFile(file: string, maxBytes: number): Buffer | number | Error {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = fstatSync(fd);
    if (!info.isFile()) return new Error(`cannot read ${file}: ${kindOf(info)}, not a regular file`);
    if (info.size > maxBytes) return info.size;
    // Sized by `stat` (one byte more shows a file grown since), and doubled while it keeps growing,
    // up to one byte past the limit: a buffer of the limit for every file made each run allocate
    // gigabytes, and the collector spent longer on them than the checks took.
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(info.size + 1, 4096), maxBytes + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(Math.min(2 * buffer.length, maxBytes + 1));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const wanted = buffer.length - length;
      const n = readSync(fd, buffer, length, wanted, null);
      length += n;
      // Grown since `stat` (or lying about its size): refused without reading the rest.
      if (length > maxBytes) return length;
      if (n === 0) break;
      // Short, with as many bytes as `stat` said: the end, without a read more to be told so (a
      // read a file; files that report no size, as /proc's, or read short elsewhere read on).
      if (n < wanted && length === info.size) break;
    }
    return buffer.subarray(0, length);
  } catch (e) {
    return new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A size for messages: `57.0 MB`, `12.5 KB`. */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`;
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}
