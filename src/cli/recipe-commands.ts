/**
 * @module `typeplane recipe …` and `typeplane environment …`: recipes (a type implemented by a template
 * of other types) registered per environment, and what `resource drift|upgrade` show of an instance a
 * recipe made. Registering and checking print the template's problems located in its file, as
 * `stack validate` does.
 */
import type { Command } from 'commander';
import {
  action,
  clientFor,
  common,
  examples,
  nothingFound,
  startOperation,
  type Common,
} from './api-commands.js';
import { ApiError, columns, render } from './client.js';
import { readLocal, type FileKind } from './local-files.js';
import {
  changesTable,
  driftTable,
  locatedLine,
  parametersOf,
  parametersOption,
  type DriftedResource,
  type Located,
  type PlannedChange,
  type WithParameters,
} from './stack-commands.js';
import { EXIT } from './usage.js';
// Types only: the answers' shapes, with nothing of the server loaded.
import type {
  EnvironmentRecord as EnvironmentView,
  RecipeView as RecipeAnswer,
  UpgradePlan as PlanAnswer,
} from '../recipes/index.js';

const enc = encodeURIComponent;

/** A recipe template is a stack template the server checks against its type; the route takes 2 MiB of body. */
const RECIPE_TEMPLATE: FileKind = {
  what: 'a recipe template',
  maxBytes: 1024 * 1024,
  fix: 'make fewer resources per instance: a recipe may make types that other recipes implement',
};

/** A recipe as the server answers it: `types` and `template` only to a caller who may see every type it makes. */
type RecipeView = Omit<RecipeAnswer, 'types'> & { types?: string[] };

type RecipeOptions = WithParameters & { name?: string; environment?: string; templateKind?: string };

/** The options `register` and `check` share: the same body goes to both routes. */
function recipeOptions(command: Command): Command {
  return parametersOption(
    common(
      command
        .argument('<typeName>', 'the type the recipe implements')
        .argument('<template>', 'the recipe: a template in the CloudFormation format (JSON or YAML)')
        .option('--name <name>', 'the recipe name (a resource picks one by its recipe.name)', 'default')
        .option('--environment <name>', 'the environment it serves (default: default)')
        .option('--template-kind <kind>', 'the template kind (only cloudformation runs here)'),
    ),
  );
}

async function recipeBody(typeName: string, file: string, options: RecipeOptions, command: Command) {
  const parameters = await parametersOf(options, command);
  return {
    typeName,
    template: readLocal(file, RECIPE_TEMPLATE),
    file,
    parameters,
    ...(options.name ? { name: options.name } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.templateKind ? { templateKind: options.templateKind } : {}),
  };
}

/** Diagnostics located in the template file the user named, whatever the server calls it. */
function inFile(file: string, diagnostics: unknown[]): (Located & { file: string })[] {
  return diagnostics
    .filter((d): d is Located => d !== null && typeof d === 'object' && 'rule' in d)
    .map((d) => ({ ...d, file }));
}

function makes(types: string[] | undefined): string {
  if (types === undefined) return '';
  return ` (makes ${types.join(', ') || 'nothing'})`;
}

function recipeLabel(r: Pick<RecipeView, 'name' | 'version' | 'typeName' | 'environment'>): string {
  return `recipe ${r.name}@${r.version} of ${r.typeName} in environment ${r.environment}`;
}

function recipeTable(recipes: RecipeView[]): string {
  return columns(
    ['ENVIRONMENT', 'TYPE', 'NAME', 'VERSION', 'TEMPLATE'],
    recipes.map((r) => [r.environment, r.typeName, r.name, String(r.version), r.templatePath]),
  );
}

function recipeDetail(r: RecipeView): string {
  const rows: [string, string][] = [
    ['environment', r.environment],
    ['type', r.typeName],
    ['name', r.name],
    ['version', r.version === r.latest ? `${r.version} (latest)` : `${r.version} (latest ${r.latest})`],
    ['template kind', r.templateKind],
    ['template path', r.templatePath],
    ['makes', r.types === undefined ? '(types you cannot see)' : r.types.join(', ') || '-'],
    [
      'parameters',
      Object.entries(r.parameters)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(', ') || '-',
    ],
    ['registered', `${r.registeredAt}${r.registeredBy ? ` by ${r.registeredBy}` : ''}`],
  ];
  const head = rows.map(([k, v]) => `${k.padEnd(15)}${v}`).join('\n');
  return r.template === undefined ? head : `${head}\n\n${r.template.trimEnd()}`;
}

function recipePath(typeName: string, options: { name?: string; environment?: string }): string {
  return `/v1/recipes/${enc(options.environment ?? 'default')}/${enc(typeName)}/${enc(options.name ?? 'default')}`;
}

export function registerRecipeCommands(program: Command): void {
  registerRecipes(program);
  registerEnvironments(program);
}

function registerRecipes(program: Command): void {
  const recipe = program
    .command('recipe')
    .description('implement a type by a template of other types, per environment (admin to change)');

  examples(
    recipeOptions(
      recipe
        .command('register')
        .description('check a recipe against its type and register it: a new version when it changed'),
    ),
    [
      'typeplane recipe register MyCompany.Resources/postgresDatabases recipes/postgres.yaml --environment prod',
      'typeplane recipe register MyCompany.Resources/postgresDatabases recipes/dev.yaml --parameters Suffix=dev',
    ],
  ).action(
    action(async (typeName: string, file: string, options: RecipeOptions, command: Command) => {
      const body = await recipeBody(typeName, file, options, command);
      let out: { recipe: RecipeView; created: boolean; diagnostics: Located[] };
      try {
        out = await clientFor(options).call('POST', '/v1/recipes', body);
      } catch (e) {
        const located = e instanceof ApiError && e.status === 400 ? inFile(file, e.details) : [];
        if (located.length === 0) throw e;
        // The template's problems, each where it is, as a compiler prints them; then what failed.
        for (const d of located) process.stderr.write(`${locatedLine(d)}\n`);
        process.stderr.write(`error: ${(e as ApiError).errorCode}: ${(e as ApiError).message}\n`);
        return EXIT.failed;
      }
      // Warnings go to stderr: the registration stays the output.
      for (const d of inFile(file, out.diagnostics)) process.stderr.write(`${locatedLine(d)}\n`);
      const r = out.recipe;
      process.stdout.write(
        render(out, options.output, () =>
          out.created
            ? `registered ${recipeLabel(r)}${makes(r.types)}`
            : `${recipeLabel(r)} is unchanged${makes(r.types)}`,
        ) + '\n',
      );
    }),
  );

  examples(
    recipeOptions(
      recipe
        .command('check')
        .description('check a recipe against its type without registering it: every problem, located'),
    ),
    ['typeplane recipe check MyCompany.Resources/postgresDatabases recipes/postgres.yaml'],
  ).action(
    action(async (typeName: string, file: string, options: RecipeOptions, command: Command) => {
      const body = await recipeBody(typeName, file, options, command);
      const out = await clientFor(options).call<{ valid: boolean; diagnostics: Located[]; types: string[] }>(
        'POST',
        '/v1/recipes/check',
        body,
      );
      const located = { ...out, diagnostics: inFile(file, out.diagnostics) };
      process.stdout.write(
        render(located, options.output, () =>
          [
            ...located.diagnostics.map(locatedLine),
            out.valid ? `✔ recipe fits ${typeName}${makes(out.types)}` : `✖ recipe does not fit ${typeName}`,
          ].join('\n'),
        ) + '\n',
      );
      return out.valid ? EXIT.ok : EXIT.failed;
    }),
  );

  examples(
    common(
      recipe
        .command('list')
        .description('list recipes (the latest version of each)')
        .option('--environment <name>', 'only the recipes of this environment')
        .option('--type <typeName>', 'only the recipes of this type'),
    ),
    ['typeplane recipe list', 'typeplane recipe list --environment prod -o yaml'],
  ).action(
    action(async (options: Common & { environment?: string; type?: string }) => {
      const query = new URLSearchParams();
      if (options.environment) query.set('environment', options.environment);
      if (options.type) query.set('typeName', options.type);
      const out = await clientFor(options).call<{ recipes: RecipeView[] }>('GET', `/v1/recipes?${query}`);
      if (options.output === 'table' && out.recipes.length === 0) return nothingFound('No recipes found');
      process.stdout.write(render(out, options.output, () => recipeTable(out.recipes)) + '\n');
    }),
  );

  examples(
    common(
      recipe
        .command('show')
        .argument('<typeName>')
        .description('a recipe version: what it makes, its parameter defaults and its template')
        .option('--name <name>', 'the recipe name', 'default')
        .option('--environment <name>', 'its environment', 'default')
        .option('--version <n>', 'a version other than the latest'),
    ),
    [
      'typeplane recipe show MyCompany.Resources/postgresDatabases --environment prod',
      'typeplane recipe show MyCompany.Resources/postgresDatabases --version 1 -o yaml',
    ],
  ).action(
    action(
      async (typeName: string, options: Common & { name: string; environment: string; version?: string }) => {
        const query = options.version === undefined ? '' : `?version=${enc(options.version)}`;
        const out = await clientFor(options).call<RecipeView>(
          'GET',
          `${recipePath(typeName, options)}${query}`,
        );
        process.stdout.write(render(out, options.output, () => recipeDetail(out)) + '\n');
      },
    ),
  );

  examples(
    common(
      recipe
        .command('delete')
        .argument('<typeName>')
        .description('delete a recipe: no new instance uses it; instances it made keep their version')
        .option('--name <name>', 'the recipe name', 'default')
        .option('--environment <name>', 'its environment', 'default'),
    ),
    ['typeplane recipe delete MyCompany.Resources/postgresDatabases --environment dev'],
  ).action(
    action(async (typeName: string, options: Common & { name: string; environment: string }) => {
      await clientFor(options).call('DELETE', recipePath(typeName, options));
      process.stdout.write(
        `deleted recipe ${options.name} of ${typeName} in environment ${options.environment}\n`,
      );
    }),
  );
}

function registerEnvironments(program: Command): void {
  const environment = program
    .command('environment')
    .description('environments: where recipes and their parameter defaults are bound (admin to change)');

  examples(
    common(
      environment
        .command('create')
        .argument('<name>', 'a letter, then letters, digits and -')
        .description('create an environment')
        .option('--description <text>', 'what it is for'),
    ),
    ["typeplane environment create prod --description 'real PostgreSQL databases'"],
  ).action(
    action(async (name: string, options: Common & { description?: string }) => {
      const out = await clientFor(options).call<EnvironmentView>('POST', '/v1/environments', {
        name,
        ...(options.description !== undefined ? { description: options.description } : {}),
      });
      process.stdout.write(render(out, options.output, () => `created environment ${out.name}`) + '\n');
    }),
  );

  examples(common(environment.command('list').description('list environments')), [
    'typeplane environment list',
  ]).action(
    action(async (options: Common) => {
      const out = await clientFor(options).call<{ environments: EnvironmentView[] }>(
        'GET',
        '/v1/environments',
      );
      process.stdout.write(
        render(out, options.output, () =>
          columns(
            ['NAME', 'CREATED', 'DESCRIPTION'],
            out.environments.map((e) => [e.name, e.createdAt, e.description ?? '']),
          ),
        ) + '\n',
      );
    }),
  );

  examples(
    common(environment.command('show').argument('<name>').description('an environment and its recipes')),
    ['typeplane environment show prod'],
  ).action(
    action(async (name: string, options: Common) => {
      const out = await clientFor(options).call<EnvironmentView & { recipes: RecipeView[] }>(
        'GET',
        `/v1/environments/${enc(name)}`,
      );
      const table = () =>
        [
          `environment   ${out.name}`,
          ...(out.description ? [`description   ${out.description}`] : []),
          `created       ${out.createdAt}`,
          '',
          out.recipes.length === 0 ? 'no recipes' : recipeTable(out.recipes),
        ].join('\n');
      process.stdout.write(render(out, options.output, table) + '\n');
    }),
  );

  examples(
    common(
      environment
        .command('delete')
        .argument('<name>')
        .description('delete an environment (refused while it has recipes)'),
    ),
    ['typeplane environment delete dev'],
  ).action(
    action(async (name: string, options: Common) => {
      await clientFor(options).call('DELETE', `/v1/environments/${enc(name)}`);
      process.stdout.write(`deleted environment ${name}\n`);
    }),
  );
}

/** `resource drift`: the drift of the resources a recipe made for an instance. */
export async function instanceDrift(typeName: string, identifier: string, options: Common): Promise<number> {
  const out = await clientFor(options).call<{ status: string; resources: DriftedResource[] }>(
    'GET',
    `/v1/resources/${enc(typeName)}/${enc(identifier)}/drift`,
  );
  process.stdout.write(
    render(out, options.output, () =>
      [`${typeName} ${identifier}: ${out.status}`, driftTable(out.resources)].join('\n'),
    ) + '\n',
  );
  return out.status === 'IN_SYNC' ? EXIT.ok : EXIT.drifted;
}

/** Changes to resources of types the caller may not see carry their logical id and action alone. */
type UpgradePlan = Omit<PlanAnswer, 'changes'> & { changes: PlannedChange[] };

function upgradeTable(plan: UpgradePlan): string {
  const head = `${plan.typeName} ${plan.identifier}: recipe ${plan.recipe} of environment ${plan.environment}, version ${plan.from} → ${plan.to}`;
  return plan.changes.length === 0
    ? `${head}\nno resource changes`
    : `${head}\n${changesTable(plan.changes)}`;
}

/**
 * `resource upgrade`: the plan first, always; with `yes`, the instance's update to its recipe's
 * latest version, followed as `resource update` follows one.
 */
export async function instanceUpgrade(
  typeName: string,
  identifier: string,
  options: Common & { yes?: boolean; wait?: unknown },
): Promise<number> {
  const path = `/v1/resources/${enc(typeName)}/${enc(identifier)}/upgrade`;
  const plan = await clientFor(options).call<UpgradePlan>('GET', path);
  if (plan.from === plan.to) {
    process.stdout.write(
      render(
        plan,
        options.output,
        () => `${typeName} ${identifier} already runs recipe ${plan.recipe}@${plan.to}, the latest`,
      ) + '\n',
    );
    return EXIT.ok;
  }
  if (!options.yes) {
    process.stdout.write(render(plan, options.output, () => upgradeTable(plan)) + '\n');
    process.stderr.write('nothing changed: run again with --yes to apply\n');
    return EXIT.ok;
  }
  // With --yes, stdout is the operation's (one document for -o json|yaml); the plan is said on stderr.
  if (options.output === 'table') process.stdout.write(`${upgradeTable(plan)}\n\n`);
  else process.stderr.write(`${upgradeTable(plan)}\n`);
  return startOperation(options, 'POST', path, {});
}
