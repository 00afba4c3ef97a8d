/**
 * Providers written for tests: each keeps resources in memory and lets a test decide how it answers.
 */
import type { HandlerEvent, HandlerRequest, Provider } from '../../src/handler/types.js';

export type Hooks = Partial<
  Record<
    'create' | 'read' | 'update' | 'delete' | 'list',
    (req: HandlerRequest, store: Map<string, Record<string, unknown>>) => Promise<HandlerEvent> | HandlerEvent
  >
>;

/** A well-behaved provider keyed by `Name`, whose handlers can be overridden one by one. */
export function memoryProvider(
  hooks: Hooks = {},
  name = 'memory',
): Provider & {
  store: Map<string, Record<string, unknown>>;
  calls: { action: string; req: HandlerRequest }[];
} {
  const store = new Map<string, Record<string, unknown>>();
  const calls: { action: string; req: HandlerRequest }[] = [];
  const wrap =
    (action: keyof Hooks, fallback: (req: HandlerRequest) => HandlerEvent) => async (req: HandlerRequest) => {
      calls.push({ action, req });
      const hook = hooks[action];
      return hook ? hook(req, store) : fallback(req);
    };
  return {
    name,
    store,
    calls,
    create: wrap('create', (req) => {
      const key = String(req.desiredState.Name);
      if (store.has(key)) return { status: 'FAILED', errorCode: 'AlreadyExists' };
      store.set(key, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    }),
    read: wrap('read', (req) => {
      const model = store.get(String(req.desiredState.Name));
      return model
        ? { status: 'SUCCESS', resourceModel: model }
        : { status: 'FAILED', errorCode: 'NotFound' };
    }),
    update: wrap('update', (req) => {
      const key = String(req.desiredState.Name);
      if (!store.has(key)) return { status: 'FAILED', errorCode: 'NotFound' };
      store.set(key, req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    }),
    delete: wrap('delete', (req) => {
      const key = String(req.desiredState.Name);
      return store.delete(key) ? { status: 'SUCCESS' } : { status: 'FAILED', errorCode: 'NotFound' };
    }),
    list: wrap('list', () => ({ status: 'SUCCESS', resourceModels: [...store.values()], nextToken: null })),
  };
}

/** A promise that resolves once `release` is called. */
function gate(): { released: Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  return { released, release };
}

/**
 * A memory provider whose reads wait until `release` is called, then answer as they would have (a
 * read request held on its fairness seat as long as a test needs).
 */
export function heldReadsProvider(): { provider: ReturnType<typeof memoryProvider>; release: () => void } {
  const { released, release } = gate();
  const provider = memoryProvider();
  const read = provider.read;
  provider.read = async (req) => {
    await released;
    return read(req);
  };
  return { provider, release };
}

/** A memory provider whose creates wait until `release` is called (a deployment held as long as a test needs). */
export function heldProvider(): { provider: ReturnType<typeof memoryProvider>; release: () => void } {
  const { released, release } = gate();
  const provider = memoryProvider({
    create: async (req, store) => {
      await released;
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  return { provider, release };
}
