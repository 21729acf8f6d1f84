import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * Adds a customer-managed key (rotated yearly) that nobody can lend out by a grant. Every key that
 * the constructs create is made here. A grant lets its grantee use the key without the key policy
 * saying so, out of sight of whoever reviews that policy. Grants that an AWS service creates for a
 * resource it encrypts stay allowed. Control Tower's CT.KMS.PR.3 requires this statement.
 */
export function addCustomerManagedKey(scope: Construct, id: string, description: string): Key {
  const key = new Key(scope, id, { description, enableKeyRotation: true });
  key.addToResourcePolicy(denyGrantsExceptForAwsServices());
  return key;
}

/** Denies `kms:CreateGrant` unless the caller is an AWS service, or a service asks on a caller's behalf for an AWS resource. */
function denyGrantsExceptForAwsServices(): PolicyStatement {
  return new PolicyStatement({
    sid: 'DenyGrantsExceptForAwsServices',
    effect: Effect.DENY,
    principals: [new AnyPrincipal()],
    actions: ['kms:CreateGrant'],
    // In a key policy, "*" means this key.
    resources: ['*'],
    // Strings: CT.KMS.PR.3 compares the values as strings, and IAM reads either.
    conditions: {
      BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' },
    },
  });
}
