/**
 * An example provider written with the Typeplane SDK. Run it with
 *   npx typeplane serve --provider examples/providers/typescript/greeting-provider.ts
 * (the .ts file as it is; a compiled .js works too). Greetings live in memory: a restart forgets them.
 */
import { defineProvider, progress, type Model } from 'typeplane/provider';

const WORDS: Record<string, string> = { en: 'Hello', fr: 'Bonjour', de: 'Hallo' };
const greetings = new Map<string, Model>();
let punctuation = '!';

// The type's configuration (`typeplane type configure`), when an operator set it, wins.
const render = (model: Model, configuration?: Record<string, unknown>): Model => ({
  ...model,
  Text: `${WORDS[String(model.Language ?? 'en')]}, ${String(model.Name)}${String(configuration?.Punctuation ?? punctuation)}`,
});

export default defineProvider({
  name: 'greetings',
  types: ['Example::Demo::Greeting'],
  schemas: ['./greeting.json'],

  // The provider's section of typeplane.config.yaml, if any.
  configure(config) {
    if (typeof config.punctuation === 'string') punctuation = config.punctuation;
  },

  async create({ desiredState, callbackContext, clientRequestToken, typeConfiguration }) {
    const name = String(desiredState.Name);
    const existing = greetings.get(name);
    // Answer a retried request (same token) with its own result instead of AlreadyExists.
    if (existing && existing.__token !== clientRequestToken)
      return progress.failed('AlreadyExists', `${name} already exists`);
    // Long work is split into steps: the engine calls again with the context we return.
    if (!callbackContext)
      // Every IN_PROGRESS answer carries the model so far, with its identifier.
      return progress.inProgress(
        { Name: name, Language: desiredState.Language },
        { callbackContext: { step: 'render' }, callbackDelaySeconds: 0 },
      );
    const model = render(desiredState, typeConfiguration);
    greetings.set(name, { ...model, __token: clientRequestToken });
    return progress.success(model);
  },

  async read({ desiredState }) {
    const found = greetings.get(String(desiredState.Name));
    if (!found) return progress.failed('NotFound', `${String(desiredState.Name)} does not exist`);
    const { __token: _token, ...model } = found;
    return progress.success(model);
  },

  async update({ desiredState, typeConfiguration }) {
    const name = String(desiredState.Name);
    if (!greetings.has(name)) return progress.failed('NotFound', `${name} does not exist`);
    const model = render(desiredState, typeConfiguration);
    greetings.set(name, model);
    return progress.success(model);
  },

  async delete({ desiredState }) {
    const name = String(desiredState.Name);
    if (!greetings.delete(name)) return progress.failed('NotFound', `${name} does not exist`);
    return progress.success();
  },

  async list({ nextToken, maxResults = 100 }) {
    const names = [...greetings.keys()].sort().filter((n) => nextToken === undefined || n > nextToken);
    const page = names.slice(0, maxResults);
    const models = page.map((n) => {
      const { __token: _token, ...model } = greetings.get(n)!;
      return model;
    });
    return progress.list(models, names.length > page.length ? page.at(-1) : null);
  },
});
