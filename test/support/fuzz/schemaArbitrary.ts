/**
 * fast-check arbitraries of the values a JSON Schema (OpenAPI 3.1, as in the bundled
 * documents) accepts: `$ref`, `allOf`, `oneOf`/`anyOf`, `const`, `enum`, type lists,
 * string formats (uuid, date-time, date, email, uri) and patterns (fast-check's
 * `stringMatching`), length and range bounds, arrays and objects (optional properties
 * sometimes left out). Sizes are kept small (arrays up to 4 items, free strings up to
 * 40 characters): the hostile mutations (./hostile.ts) bring the large values.
 *
 * `override(name, schema)` may replace the arbitrary of an object property, e.g. to
 * use the ids of real resources for `wallet_id` (./world.ts).
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

/** A property's own arbitrary instead of its schema's, or undefined to use the schema. */
export type Override = (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;

const SMALL = 40;

/** Resolves local `$ref`s (`#/components/...`) against the bundled document `doc`. */
export function resolver(doc: Schema): (node: Schema | undefined) => Schema {
  const resolve = (node: Schema | undefined): Schema => {
    if (!node?.$ref) return node ?? {};
    const target = (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return resolve(target);
  };
  return resolve;
}

/** `allOf` folded into one schema (properties and required merged; the last word on everything else). */
function merged(schema: Schema, resolve: (n: Schema | undefined) => Schema): Schema {
  if (!schema.allOf) return schema;
  const parts = [{ ...schema, allOf: undefined }, ...(schema.allOf as Schema[]).map((s) => merged(resolve(s), resolve))];
  return parts.reduce<Schema>(
    (acc, part) => ({
      ...acc,
      ...part,
      properties: { ...acc.properties, ...part.properties },
      required: [...new Set([...(acc.required ?? []), ...(part.required ?? [])])],
    }),
    {},
  );
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, schema.maxLength ?? SMALL);
  const fits = (s: string) => s.length >= min && s.length <= max;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress().filter(fits);
    case 'uri':
      return fc.webUrl().filter(fits);
  }
  if (schema.pattern) {
    let regex: RegExp | undefined;
    try {
      regex = new RegExp(schema.pattern, 'u');
    } catch {
      regex = undefined;
    }
    if (regex) {
      try {
        return fc.stringMatching(regex, { size: 'xsmall' }).filter(fits);
      } catch {
        // A pattern fast-check cannot generate from: free text of the right length.
      }
    }
  }
  return fc.string({ minLength: min, maxLength: Math.min(max, Math.max(min, SMALL)), unit: 'grapheme' });
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const low = schema.exclusiveMinimum ?? schema.minimum;
  const high = schema.exclusiveMaximum ?? schema.maximum;
  if (integer) {
    const min = low === undefined ? -1_000_000 : Math.ceil(low) + (schema.exclusiveMinimum !== undefined ? 1 : 0);
    const max = high === undefined ? 1_000_000 : Math.floor(high) - (schema.exclusiveMaximum !== undefined ? 1 : 0);
    return fc.integer({ min, max: Math.max(min, max) });
  }
  return fc.double({ min: low ?? -1e6, max: high ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/**
 * The arbitrary of the values `schema` accepts, in document `doc`. Recursion stops at
 * depth 6 (deeper values are `null`); an unknown or missing type is any JSON value.
 */
export function arbitraryOf(schema: Schema | undefined, doc: Schema, override?: Override, depth = 0): fc.Arbitrary<unknown> {
  const resolve = resolver(doc);
  const s = merged(resolve(schema), resolve);
  if (depth > 6) return fc.constant(null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (alternatives?.length) {
    const { oneOf: _o, anyOf: _a, ...rest } = s;
    return fc.oneof(...alternatives.map((alt) => arbitraryOf({ ...rest, ...merged(resolve(alt), resolve) }, doc, override, depth + 1)));
  }
  if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((type) => arbitraryOf({ ...s, type }, doc, override, depth)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberOf(s, true);
    case 'number':
      return numberOf(s, false);
    case 'string':
      return stringOf(s);
    case 'array':
      return fc.array(arbitraryOf(s.items, doc, override, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)),
      });
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, Schema>;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        model[name] = override?.(name, resolve(property)) ?? arbitraryOf(property, doc, override, depth + 1);
      }
      const required = ((s.required ?? []) as string[]).filter((name) => name in model);
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
