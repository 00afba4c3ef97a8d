/**
 * @module The short forms of a template's YAML (`!Ref Name`, `!GetAtt Db.Port`, `!Sub '…'`, …): each
 * tag becomes its long form (`{ Ref: Name }`, `{ 'Fn::GetAtt': [Db, Port] }`) as the document is
 * composed, so positions stay with the nodes and the rest of the code sees one form only.
 */
import { Pair, Scalar, YAMLMap, type CollectionTag, type ScalarTag, type Tags } from 'yaml';

/** Tag → the key of its long form. `!GetAtt` and `!Condition` have scalar forms of their own. */
const FUNCTIONS: Record<string, string> = {
  '!Ref': 'Ref',
  '!Condition': 'Condition',
  '!GetAtt': 'Fn::GetAtt',
  '!Sub': 'Fn::Sub',
  '!Join': 'Fn::Join',
  '!Select': 'Fn::Select',
  '!Split': 'Fn::Split',
  '!If': 'Fn::If',
  '!Equals': 'Fn::Equals',
  '!And': 'Fn::And',
  '!Or': 'Fn::Or',
  '!Not': 'Fn::Not',
  '!FindInMap': 'Fn::FindInMap',
  '!Base64': 'Fn::Base64',
  '!ToJsonString': 'Fn::ToJsonString',
  '!ImportValue': 'Fn::ImportValue',
  '!GetAZs': 'Fn::GetAZs',
  '!Cidr': 'Fn::Cidr',
  '!Length': 'Fn::Length',
  // Read so that it is refused by name (TP4018), not taken for a plain mapping.
  '!Transform': 'Fn::Transform',
  // The rule functions of the Rules section's assertions (published templates write them short).
  '!Contains': 'Fn::Contains',
  '!EachMemberEquals': 'Fn::EachMemberEquals',
  '!EachMemberIn': 'Fn::EachMemberIn',
  '!RefAll': 'Fn::RefAll',
  '!ValueOf': 'Fn::ValueOf',
  '!ValueOfAll': 'Fn::ValueOfAll',
};

function wrapped(key: string, value: unknown): YAMLMap {
  const map = new YAMLMap();
  map.items.push(new Pair(new Scalar(key), value));
  return map;
}

/** Tags for {@link parseSource}'s `yamlTags`: every short form, for scalars, sequences and mappings. */
export const TEMPLATE_TAGS: Tags = Object.entries(FUNCTIONS).flatMap(([tag, key]) => {
  const scalar: ScalarTag = {
    tag,
    resolve: (value: string) => {
      // `!GetAtt Resource.Attribute.Nested`: the logical id is before the first dot.
      if (key === 'Fn::GetAtt') {
        const dot = value.indexOf('.');
        return { [key]: dot < 0 ? [value] : [value.slice(0, dot), value.slice(dot + 1)] };
      }
      return { [key]: value };
    },
  };
  const collections: CollectionTag[] = (['seq', 'map'] as const).map((collection) => ({
    tag,
    collection,
    resolve: (value) => wrapped(key, value),
  }));
  return [scalar, ...collections];
});

/**
 * What an unknown tag is told (`!Rain::Embed`, `!Foo`): it would be dropped, leaving a value its
 * author never meant, so the template is refused at the tag.
 */
export function unknownTagMessage(tag: string): string {
  const known = Object.keys(FUNCTIONS).join(', ');
  if (tag.startsWith('!Rain::'))
    return `unknown tag ${tag}: Rain's tags are expanded by Rain (rain pkg writes the template without them); give the template it writes`;
  return `unknown tag ${tag}: a template's tags are the short forms of its intrinsic functions, ${known}; write one of them, or the function's long form ({"Fn::…": …})`;
}
