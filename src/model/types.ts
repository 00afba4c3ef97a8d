/**
 * @module What a resource is to every layer: its model, the properties of one resource.
 */

/** A resource model: the properties of one resource. */
export type Model = { [key: string]: unknown };
