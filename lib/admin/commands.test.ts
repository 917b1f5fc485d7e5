import { describe, expect, it } from 'vitest';
import { auditAction } from './commands';

describe('the audit log names the CLI’s changes as the API’s', () => {
  it('object.verb, snake_case, with the API’s object names', () => {
    expect(auditAction('org create')).toBe('organization.create');
    expect(auditAction('apikey revoke')).toBe('api_key.revoke');
    expect(auditAction('token create')).toBe('org_token.create');
    expect(auditAction('admin-token revoke')).toBe('admin_token.revoke');
    expect(auditAction('node admit')).toBe('node.admit');
    expect(auditAction('demo node stop')).toBe('demo_node.stop');
    expect(auditAction('provider add')).toBe('provider.add');
  });
});
