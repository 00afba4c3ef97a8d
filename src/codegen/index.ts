/**
 * @module Code generation from resource types.
 */
export { generateTypeScript, interfaceName } from './typescript.js';
