/**
 * @module The language server (`typeplane lsp --stdio`): Typeplane's own checks, completion and
 * navigation for resource schemas, manifests, hook schemas and stack templates in any editor that
 * speaks the Language Server Protocol. See docs/editors.md.
 */
export { serveLanguage, DEFAULT_DEBOUNCE_MS, type LanguageServerOptions } from './server.js';
export { Workspace, type RegistryClient, type RegisteredTypeSummary } from './workspace.js';
