import { describe, expect, it } from 'vitest';
import { redactCredentials, withoutCredentials } from '../../src/errors.js';

describe('credentials in URLs', () => {
  it('are left out of a URL kept as an identity, in the form it was given', () => {
    expect(withoutCredentials('https://alice:pw@cms.example.com')).toBe('https://cms.example.com');
    expect(withoutCredentials('https://alice:pw@cms.example.com/')).toBe('https://cms.example.com/');
    expect(withoutCredentials('https://alice@cms.example.com/api/v1')).toBe('https://cms.example.com/api/v1');
    expect(withoutCredentials('https://cms.example.com')).toBe('https://cms.example.com');
    expect(withoutCredentials('local')).toBe('local');
  });

  it('are hidden in any text that quotes a URL, up to the last @ of the authority', () => {
    expect(redactCredentials('Target: https://alice:s3cret@cms.example.com/x?y=a@b')).toBe(
      'Target: https://***@cms.example.com/x?y=a@b',
    );
    expect(redactCredentials('at http://u:p@ss@10.0.0.1:8080 and https://v:q@h')).toBe(
      'at http://***@10.0.0.1:8080 and https://***@h',
    );
    expect(redactCredentials('mail alice@example.com, see https://example.com')).toBe(
      'mail alice@example.com, see https://example.com',
    );
  });
});
