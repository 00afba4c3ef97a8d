/**
 * The package as a user installs it: `npm pack` of the current sources (dist/ when it is the build of
 * them, else compiled into a staging folder, so a stale dist/ cannot hide anything), installed into an empty folder outside the repository and
 * run from there — the CLI through its bin link, `typeplane` and `typeplane/provider` from ESM and
 * CommonJS, TypeScript providers straight from .ts/.mts files.
 *
 * Installing means what npm does with a tarball: its files unpacked under node_modules/typeplane and
 * its bin linked. The dependencies are this checkout's installed ones (better-sqlite3 would otherwise
 * compile for minutes), linked one by one from package.json's `dependencies` only: a devDependency
 * or an undeclared package imported at run time cannot be found, as in a real install.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
};
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const vite = join(root, 'node_modules/vite/bin/vite.js');
const checkImports = join(root, 'scripts/check-imports.mjs');

let work: string; // holds the staging folder, the tarball and the user's folder
let app: string; // the user's folder: nothing of the repository in it
let installed: string; // app/node_modules/typeplane
let bin: string; // app/node_modules/.bin/typeplane
let tarball: string; // what `npm pack` made

/** A clean environment: nothing pointing back at the repository or its loaders. */
const env = (): NodeJS.ProcessEnv => {
  const {
    NODE_OPTIONS: _options,
    TYPEPLANE_TOKEN: _token,
    TYPEPLANE_ENDPOINT: _endpoint,
    ...rest
  } = process.env;
  return { ...rest, NO_COLOR: '1' };
};

function typeplane(args: string[], input?: string) {
  const run = spawnSync(bin, args, { cwd: app, encoding: 'utf8', env: env(), timeout: 60_000, input });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function node(args: string[]) {
  const run = spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8', env: env(), timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Whether dist/ is the build of the sources as they are: a .js for every .ts under src/ and none
 * more, each written after every source and package.json changed. (Then it is packed as it is, as
 * after `npm run build`; otherwise the sources are compiled into the staging folder.)
 */
function distIsFresh(): boolean {
  const list = (dir: string, ext: RegExp) =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true })
          .map(String)
          .filter((f) => ext.test(f))
      : [];
  const sources = list(join(root, 'src'), /\.ts$/).filter((f) => !f.endsWith('.d.ts'));
  // dist/console is the web console's build (Vite's, from console/): see consoleIsFresh.
  const built = list(join(root, 'dist'), /\.js$/).filter((f) => !f.startsWith('console'));
  const expected = sources.map((f) => f.replace(/\.ts$/, '.js')).sort();
  if (built.length === 0 || JSON.stringify(built.sort()) !== JSON.stringify(expected)) return false;
  const newestSource = Math.max(
    statSync(join(root, 'package.json')).mtimeMs,
    ...sources.map((f) => statSync(join(root, 'src', f)).mtimeMs),
  );
  return Math.min(...built.map((f) => statSync(join(root, 'dist', f)).mtimeMs)) > newestSource;
}

/** Whether dist/console is the build of the web console's sources (console/) as they are. */
function consoleIsFresh(): boolean {
  const index = join(root, 'dist/console/index.html');
  if (!existsSync(index)) return false;
  const sources = readdirSync(join(root, 'console'), { recursive: true }).map((f) =>
    join(root, 'console', String(f)),
  );
  return statSync(index).mtimeMs > Math.max(...sources.map((f) => statSync(f).mtimeMs));
}

before(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'typeplane-packed-')));
  // Stage what `files` names (plus package.json and README.md, which npm always packs) and the build
  // of the current sources.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of ['package.json', 'README.md', ...pkg.files.filter((f) => f !== 'dist')])
    cpSync(join(root, entry), join(stage, entry), { recursive: true });
  if (distIsFresh()) cpSync(join(root, 'dist'), join(stage, 'dist'), { recursive: true });
  else
    execFileSync(
      process.execPath,
      [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')],
      {
        stdio: 'pipe',
      },
    );
  // The web console, built as `npm run build` builds it, unless dist/console is that build already.
  if (!consoleIsFresh())
    execFileSync(
      process.execPath,
      [
        vite,
        'build',
        '--config',
        join(root, 'console/vite.config.ts'),
        '--outDir',
        join(stage, 'dist/console'),
      ],
      { stdio: 'pipe' },
    );
  else if (!existsSync(join(stage, 'dist/console')))
    cpSync(join(root, 'dist/console'), join(stage, 'dist/console'), { recursive: true });
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: stage,
    encoding: 'utf8',
  });
  tarball = join(work, (JSON.parse(packed) as { filename: string }[])[0]!.filename);

  app = join(work, 'app');
  installed = join(app, 'node_modules', pkg.name);
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-platform', private: true }));
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(pkg.dependencies)) {
    const link = join(app, 'node_modules', dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', dependency)), link);
  }
  mkdirSync(join(app, 'node_modules/.bin'));
  for (const [name, target] of Object.entries(pkg.bin)) {
    chmodSync(join(installed, target), 0o755);
    symlinkSync(join('..', pkg.name, target), join(app, 'node_modules/.bin', name));
  }
  bin = join(app, 'node_modules/.bin/typeplane');
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the import-graph check passes on the packed build and fails on a devDependency imported at run time', () => {
  assert.equal(spawnSync(process.execPath, [checkImports, installed]).status, 0);
  // The same check over a package whose build imports a devDependency (and an undeclared package).
  const bad = join(work, 'bad');
  mkdirSync(join(bad, 'dist'), { recursive: true });
  writeFileSync(join(bad, 'package.json'), JSON.stringify({ ...pkg, name: 'bad' }));
  writeFileSync(
    join(bad, 'dist/runner.js'),
    "import 'prettier';\nexport const x = await import('left-pad');\n",
  );
  const run = spawnSync(process.execPath, [checkImports, bad], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /dist\/runner\.js imports 'prettier', a devDependency/);
  assert.match(run.stderr, /dist\/runner\.js imports 'left-pad', not in package\.json/);
});

test('npm install of the package warns of no engine, and the README names every install script to allow', (t) => {
  // The tree npm resolves for a user's `npm install typeplane` (from the registry; nothing is
  // downloaded or run): every package in it must support this Node (cookie@2 wanted Node 22, under
  // light-my-request, which fastify loads only for inject()).
  const user = join(work, 'npm-user');
  mkdirSync(user);
  writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'npm-user', private: true }));
  const install = spawnSync(
    'npm',
    [
      'install',
      tarball,
      '--package-lock-only',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--engine-strict',
    ],
    { cwd: user, encoding: 'utf8', env: env(), timeout: 120_000 },
  );
  const output = install.stdout + install.stderr;
  if (install.status !== 0 && /ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNREFUSED|ENETUNREACH/.test(output)) {
    t.skip(
      `the npm registry is out of reach: ${/npm error (?:code )?(E\w+)/.exec(output)?.[1] ?? 'no answer'}`,
    );
    return;
  }
  assert.equal(install.status, 0, output);
  assert.doesNotMatch(output, /EBADENGINE/);
  assert.equal(readLock(join(user, 'package-lock.json')).packages['node_modules/cookie']?.version?.[0], '1');
  // npm 11 warns of install scripts the user's package.json#allowScripts does not cover: the README
  // names each one to allow, as this repository's package.json allows them.
  assert.deepEqual(scriptedIn(join(user, 'package-lock.json')), ['better-sqlite3', 'esbuild']);
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.match(readme, /"allowScripts": \{ "better-sqlite3": true, "esbuild": true \}/);
  const own = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      allowScripts: Record<string, boolean>;
    }
  ).allowScripts;
  for (const name of scriptedIn(join(root, 'package-lock.json')))
    assert.equal(own[name], true, `package.json#allowScripts allows ${name}'s install script`);
});

interface PackageLock {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
}

const readLock = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PackageLock;

/** The packages of a lock file that have install scripts, by name. */
function scriptedIn(lockFile: string): string[] {
  return Object.entries(readLock(lockFile).packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();
}

test('the package holds the docs the README links to, a LICENSE, and no source maps without sources', () => {
  const license = readFileSync(join(installed, 'LICENSE'), 'utf8');
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /END OF TERMS AND CONDITIONS/);
  const readme = readFileSync(join(installed, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/\]\(((?:docs|examples)\/[^)#\s]+)/g)].map((m) => m[1]!);
  assert.ok(links.includes('docs/provider-protocol.md'), 'the README links the docs');
  for (const link of links)
    assert.ok(existsSync(join(installed, link)), `README links ${link}, which is packed`);
  for (const doc of ['docs/api.md', 'docs/traits.md', 'docs/architecture.md'])
    assert.ok(existsSync(join(installed, doc)), `${doc} is packed`);
  const built = readdirSync(join(installed, 'dist'), { recursive: true }).map(String);
  assert.deepEqual(
    built.filter((f) => f.endsWith('.map')),
    [],
  );
  const main = readFileSync(join(installed, 'dist/cli/main.js'), 'utf8');
  assert.doesNotMatch(main, /sourceMappingURL/);
  assert.equal(existsSync(join(installed, 'src')), false);
});

test('every command of the installed CLI answers --help, and --version', async () => {
  const version = typeplane(['--version']);
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout.trim(), pkg.version);
  const help = typeplane(['--help']);
  assert.equal(help.code, 0, help.stderr);
  const commands = [...help.stdout.matchAll(/^ {2}([a-z]+) /gm)]
    .map((m) => m[1]!)
    .filter((c) => c !== 'help');
  assert.deepEqual(commands, [
    'validate',
    'serve',
    'generate',
    'type',
    'resource',
    'request',
    'stack',
    'recipe',
    'environment',
    'token',
    'policy',
    'hook',
    'backup',
    'restore',
    'audit',
    'test',
    'diff',
    'lsp',
    'completion',
  ]);
  const groups: Record<string, string[]> = {
    generate: ['bicep', 'json-schema'],
    type: [
      'register',
      'list',
      'show',
      'versions',
      'set-default',
      'delete',
      'configure',
      'configuration',
      'report',
    ],
    resource: [
      'create',
      'get',
      'update',
      'delete',
      'forget',
      'import',
      'list',
      'put',
      'references',
      'drift',
      'upgrade',
    ],
    request: ['get', 'list', 'cancel'],
    recipe: ['register', 'check', 'list', 'show', 'delete'],
    environment: ['create', 'list', 'show', 'delete'],
    token: ['create', 'list', 'update', 'revoke'],
    policy: ['create', 'list', 'show', 'delete', 'test'],
    hook: ['register', 'list', 'show', 'configure', 'configuration', 'deregister'],
    audit: ['verify', 'export'],
  };
  const invocations = commands.flatMap((c) => [[c], ...(groups[c] ?? []).map((s) => [c, s])]);
  const runs = await Promise.all(invocations.map((args) => typeplaneAsync([...args, '--help'])));
  runs.forEach((run, i) => {
    assert.equal(run.code, 0, `${invocations[i]!.join(' ')} --help: ${run.stderr}`);
    assert.match(run.stdout, /^Usage: typeplane /, `${invocations[i]!.join(' ')} --help`);
  });
});

test('the installed CLI validates and generates from the packed examples', () => {
  const validate = typeplane(['validate', 'node_modules/typeplane/examples']);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  assert.match(validate.stdout, /✔ \d+ files checked/);
  const generate = typeplane(['generate', 'node_modules/typeplane/examples/postgresDatabases.yaml']);
  assert.equal(generate.code, 0, generate.stderr);
  assert.match(generate.stdout, /export interface/);
});

test("ESM: import from 'typeplane' and 'typeplane/provider'", () => {
  const run = node([
    '--input-type=module',
    '-e',
    `import { validateDocument } from 'typeplane';
     import { defineProvider, progress } from 'typeplane/provider';
     const r = validateDocument('{"typeName": "A::B::C"}', { file: 'x.json' });
     const p = defineProvider({ name: 'p', types: ['A::B::C'], create: async () => progress.success({ Id: 'a' }),
       read: async () => progress.success({}), update: async () => progress.success({}),
       delete: async () => progress.success(), list: async () => progress.list([], null) });
     console.log(JSON.stringify({ valid: r.valid, rules: r.diagnostics.map((d) => d.rule).slice(0, 1), status: (await p.create({})).status }));`,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { valid: boolean; rules: string[]; status: string };
  assert.equal(out.valid, false);
  assert.match(out.rules[0]!, /^TP\d{4}$/);
  assert.equal(out.status, 'SUCCESS');
});

test("the service and remote providers, as documented: startService from 'typeplane', createRemoteProvider from 'typeplane/provider'", () => {
  // A provider in another language, reduced to its wire: one POST per handler call, answered with a
  // ProgressEvent (the greeting it makes is its own: Text is read-only).
  writeFileSync(
    join(app, 'remote.mjs'),
    `import { createServer } from 'node:http';
     import { startService } from 'typeplane';
     import { createRemoteProvider } from 'typeplane/provider';
     const wire = createServer((req, res) => {
       let body = '';
       req.on('data', (c) => (body += c));
       req.on('end', () => {
         const m = JSON.parse(body);
         const model = { ...m.requestData.resourceProperties, Text: 'Hello, ' + m.requestData.resourceProperties.Name };
         const event = m.action === 'DELETE' ? { status: 'SUCCESS' }
           : m.action === 'LIST' ? { status: 'SUCCESS', resourceModels: [], nextToken: null }
           : { status: 'SUCCESS', resourceModel: model };
         res.setHeader('content-type', 'application/json').end(JSON.stringify(event));
       });
     }).listen(0, '127.0.0.1');
     await new Promise((r) => wire.once('listening', r));
     const greetings = createRemoteProvider({ name: 'wire-greetings', url: 'http://127.0.0.1:' + wire.address().port + '/',
       types: ['Example::Demo::Greeting'], schemas: ['node_modules/typeplane/examples/providers/typescript/greeting.json'] });
     const token = 'tp_' + 'r'.repeat(43);
     const service = await startService({ dataDir: '.typeplane-remote', port: 0, adminToken: token, providerDefinitions: [greetings] });
     try {
       const answer = await fetch(service.url + '/v1/resources/Example::Demo::Greeting?wait=20', { method: 'POST',
         headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
         body: JSON.stringify({ desiredState: { Name: 'ada' } }) });
       console.log(JSON.stringify((await answer.json()).progressEvent));
     } finally {
       await service.close();
       wire.close();
     }`,
  );
  const run = node(['remote.mjs']);
  assert.equal(run.code, 0, run.stderr);
  const event = JSON.parse(run.stdout) as { operationStatus: string; resourceModel: Record<string, string> };
  assert.equal(event.operationStatus, 'SUCCESS', run.stdout);
  assert.deepEqual(event.resourceModel, { Name: 'ada', Language: 'en', Text: 'Hello, ada' });

  // Typed: the declarations the package ships describe both (an option missing or misspelt fails).
  writeFileSync(
    join(app, 'typed.mts'),
    `import { startService, type Service, type ServiceOptions } from 'typeplane';
     import { createRemoteProvider, type ProviderDefinition, type RemoteProviderOptions } from 'typeplane/provider';
     const options: RemoteProviderOptions = { name: 'notes', url: 'http://127.0.0.1:8080/', types: ['Example::Python::Note'] };
     const notes: ProviderDefinition = createRemoteProvider(options);
     const serviceOptions: ServiceOptions = { dataDir: './data', port: 0, providerDefinitions: [notes] };
     export const started: Promise<Service> = startService(serviceOptions);
     // @ts-expect-error dataDir is required
     export const missing = startService({ port: 0 });
     // @ts-expect-error a remote provider needs its url
     export const noUrl = createRemoteProvider({ name: 'notes', types: [] });
     export const url: Promise<string> = started.then((s) => s.url);`,
  );
  const typed = node([
    tsc,
    '--noEmit',
    '--strict',
    '--skipLibCheck',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--target',
    'es2022',
    'typed.mts',
  ]);
  assert.equal(typed.code, 0, typed.stdout + typed.stderr);
});

test("CommonJS: require('typeplane') and a provider compiled to CommonJS requiring 'typeplane/provider'", () => {
  writeFileSync(
    join(app, 'provider.cjs'),
    `'use strict';
     const { defineProvider, progress } = require('typeplane/provider');
     module.exports = defineProvider({ name: 'cjs', types: ['A::B::C'],
       create: async ({ desiredState }) => progress.success({ ...desiredState, Arn: 'arn:' + desiredState.Id }),
       read: async () => progress.success({}), update: async () => progress.success({}),
       delete: async () => progress.success(), list: async () => progress.list([], null) });`,
  );
  const run = node([
    '-e',
    `const { validateDocument, startService } = require('typeplane');
     const { createRemoteProvider } = require('typeplane/provider');
     const provider = require('./provider.cjs');
     provider.create({ desiredState: { Id: 'a' } }).then((e) => console.log(JSON.stringify({
       exports: [typeof startService, typeof createRemoteProvider],
       valid: validateDocument(require('node:fs').readFileSync('node_modules/typeplane/examples/postgresDatabases.yaml'), { file: 'p.yaml' }).valid,
       event: e })));`,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const out = JSON.parse(run.stdout) as {
    exports: string[];
    valid: boolean;
    event: { status: string; resourceModel: unknown };
  };
  assert.deepEqual(out.exports, ['function', 'function']);
  assert.equal(out.valid, true);
  assert.deepEqual(out.event.resourceModel, { Id: 'a', Arn: 'arn:a' });
});

test('typeplane test and typeplane serve load TypeScript providers (.ts and .mts) from the installed package', async () => {
  // The packed example, copied out as a user would start from it.
  const example = join(installed, 'examples/providers/typescript');
  cpSync(join(example, 'greeting.json'), join(app, 'greeting.json'));
  cpSync(join(example, 'greeting-provider.ts'), join(app, 'greeting-provider.ts'));
  cpSync(join(example, 'greeting-provider.ts'), join(app, 'greeting-provider.mts'));

  // No --schema: the module declares its schemas (./greeting.json, beside it).
  const suite = typeplane(['test', '--provider', './greeting-provider.ts', '--runs', '1', '--seed', '1']);
  assert.equal(suite.code, 0, suite.stdout + suite.stderr);
  assert.match(suite.stdout, /passed/);

  const token = `tp_${'k'.repeat(43)}`;
  const server = spawn(
    bin,
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(app, '.typeplane'),
      '--log-level',
      'warn',
      '--provider',
      './greeting-provider.mts',
    ],
    { cwd: app, env: { ...env(), TYPEPLANE_ADMIN_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  try {
    let logs = '';
    server.stderr.on('data', (d: Buffer) => (logs += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.once('exit', (code) => reject(new Error(`serve exited with ${code}\n${logs}`)));
    });
    const create = typeplaneAsync(
      [
        'resource',
        'create',
        'Example::Demo::Greeting',
        '--properties',
        '{"Name": "ada", "Language": "fr"}',
        '--wait',
        '20',
        '-o',
        'json',
      ],
      { TYPEPLANE_ENDPOINT: url, TYPEPLANE_TOKEN: token },
    );
    const done = await create;
    assert.equal(done.code, 0, done.stderr);
    const event = (
      JSON.parse(done.stdout) as {
        progressEvent: { operationStatus: string; resourceModel: { Text: string } };
      }
    ).progressEvent;
    assert.equal(event.operationStatus, 'SUCCESS');
    assert.equal(event.resourceModel.Text, 'Bonjour, ada!');
    // The web console ships built in the package: its page and the assets it names.
    const page = await fetch(`${url}/console`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    assert.equal((await fetch(`${url}${script}`)).status, 200);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(null)));
  }
  // Nothing of the run was written into the repository.
  assert.equal(relative(root, app).startsWith('..'), true);
});

/** The installed CLI without blocking this process (a server it talks to runs in a child of ours). */
function typeplaneAsync(args: string[], extra: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(bin, args, { cwd: app, env: { ...env(), ...extra } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // 'close', not 'exit': a child's output may still be unread when it exits.
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
