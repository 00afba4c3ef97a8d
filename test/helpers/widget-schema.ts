/**
 * The widget the benchmarks (bench/api-harness.ts's Bench::Api::Widget, bench/harness.ts's soak,
 * memory, stacks and Cloud Control one) and the cost tests measure, one schema for all: the
 * benchmarks' figures and the tests' counts then speak of the same resource, a Name and a few
 * properties.
 */
export function widgetSchema(typeName: string, description = 'A Name and a few properties.') {
  return {
    typeName,
    description,
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
