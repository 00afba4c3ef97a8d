/**
 * @module The `yaml` package for the CLI's commands, loaded on first use: most commands neither read
 * nor print YAML, and loading it is a sixth of such a command's start.
 */
export { yaml } from '../schema/packages.js';
