/**
 * The widget the cost tests measure, shaped as bench/api.ts's Bench::Api::Widget (the benchmark's
 * figures and the tests' counts then speak of the same resource): a Name and a few properties.
 */
export function widgetSchema(typeName: string) {
  return {
    typeName,
    description: 'A Name and a few properties.',
    properties: {
      Name: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' },
      Size: { type: 'string', enum: ['S', 'M', 'L'], default: 'S' },
      Color: { type: 'string' },
      Count: { type: 'integer', minimum: 0 },
    },
    additionalProperties: false,
    required: ['Name'],
    primaryIdentifier: ['/properties/Name'],
    createOnlyProperties: ['/properties/Name'],
  };
}
