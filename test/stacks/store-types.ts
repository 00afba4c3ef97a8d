/**
 * The parts of the AWS schemas of the parameter store's types (AWS::SSM::Parameter,
 * AWS::SecretsManager::Secret) that the stack tests use: identifiers, write-only and read-only
 * properties as in AWS's, so the tests need not the corpus.
 */
/** The part of AWS::SSM::Parameter's schema these tests use (Name is its identifier, as in AWS's). */
export const SSM_PARAMETER = JSON.stringify({
  typeName: 'AWS::SSM::Parameter',
  description: 'An SSM parameter (the properties the stack tests use).',
  properties: {
    Name: { type: 'string' },
    Type: { type: 'string', enum: ['String', 'StringList'] },
    Value: { type: 'string' },
  },
  additionalProperties: false,
  required: ['Value', 'Type'],
  primaryIdentifier: ['/properties/Name'],
  createOnlyProperties: ['/properties/Name'],
});

/** The part of AWS::SecretsManager::Secret's schema these tests use (SecretString is write-only, as in AWS's). */
export const SECRET = JSON.stringify({
  typeName: 'AWS::SecretsManager::Secret',
  description: 'A secret (the properties the stack tests use).',
  properties: {
    Id: { type: 'string' },
    Name: { type: 'string' },
    SecretString: { type: 'string' },
    GenerateSecretString: {
      type: 'object',
      properties: {
        PasswordLength: { type: 'integer' },
        ExcludePunctuation: { type: 'boolean' },
        ExcludeCharacters: { type: 'string' },
        SecretStringTemplate: { type: 'string' },
        GenerateStringKey: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  primaryIdentifier: ['/properties/Id'],
  readOnlyProperties: ['/properties/Id'],
  createOnlyProperties: ['/properties/Name'],
  writeOnlyProperties: ['/properties/SecretString', '/properties/GenerateSecretString'],
});
