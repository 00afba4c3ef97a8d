/**
 * @module /console — the web console's built files (`npm run build` writes them to dist/console),
 * served as they are. The pages call the /v1 API with the signed-in token: these routes are open, as
 * the files hold no data, only code.
 *
 * Every answer carries a strict Content-Security-Policy (scripts and styles from files of this
 * origin only, no inline code, no framing) and the hashed assets are cached for good. Only names in
 * the built folder's listing are served, so no path reaches outside it. Without a build (running
 * from the sources) the page is a 404 saying to run `npm run build`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody } from '../errors.js';

export const CONSOLE_ROUTES: readonly string[] = ['/console', '/console/*'];

/** Whatever the page does, it loads and talks to this origin only, and nothing may frame it. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface ConsoleFile {
  body: Buffer;
  type: string;
  /** Vite names assets by their content's hash: such a name never serves other bytes. */
  immutable: boolean;
}

/**
 * The built console: dist/console beside the built server; from the sources, the checkout's
 * dist/console when it has been built.
 */
const CANDIDATES = [
  fileURLToPath(new URL('../../console/', import.meta.url)),
  fileURLToPath(new URL('../../../dist/console/', import.meta.url)),
];

function builtFolder(): string | undefined {
  return CANDIDATES.find((folder) => {
    try {
      return statSync(join(folder, 'index.html')).isFile();
    } catch {
      return false;
    }
  });
}

/** Every file of the build by its path under /console/ (a few hundred KiB, read once). */
function readBuild(folder: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const path = join(folder, entry);
    if (!statSync(path).isFile()) continue;
    const name = entry.split(sep).join('/');
    files.set(name, {
      body: readFileSync(path),
      type: TYPES[extname(name)] ?? 'application/octet-stream',
      immutable: name.startsWith('assets/'),
    });
  }
  return files;
}

function send(reply: FastifyReply, file: ConsoleFile): FastifyReply {
  return reply
    .header('content-type', file.type)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .send(file.body);
}

export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  // Read on the first request: a server nobody opens the console of reads nothing.
  let files: Map<string, ConsoleFile> | undefined;
  const build = (): Map<string, ConsoleFile> | undefined => {
    if (files) return files;
    const folder = builtFolder();
    if (folder) files = readBuild(folder);
    return files;
  };
  const serve = (name: string, reply: FastifyReply): FastifyReply => {
    void reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer');
    const built = build();
    if (!built)
      return reply
        .status(404)
        .send(
          errorBody(
            'NotFound',
            "the web console is not built: run 'npm run build' (it writes dist/console), then restart the server",
          ),
        );
    const file = built.get(name === '' ? 'index.html' : name);
    if (!file)
      return reply.status(404).send(errorBody('NotFound', `the console has no file ${JSON.stringify(name)}`));
    return send(reply, file);
  };
  app.get('/console', (_request, reply) => serve('', reply));
  app.get<{ Params: { '*': string } }>('/console/*', (request, reply) => serve(request.params['*'], reply));
}
