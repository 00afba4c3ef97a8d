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

/** A memory provider whose creates wait until `release` is called (a deployment held as long as a test needs). */
export function heldProvider(): { provider: ReturnType<typeof memoryProvider>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const provider = memoryProvider({
    create: async (req, store) => {
      await released;
      store.set(String(req.desiredState.Name), req.desiredState);
      return { status: 'SUCCESS', resourceModel: req.desiredState };
    },
  });
  return { provider, release };
}
