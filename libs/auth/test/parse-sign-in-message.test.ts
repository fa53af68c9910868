import { ProblemError } from '@nrp/validation';
import { normalizeDomain, parseSignInMessage } from '../src';

// EIP-4361's example message, with an EIP-55 address (anvil account 0).
const example = [
  'service.org wants you to sign in with your Ethereum account:',
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '',
  'I accept the ServiceOrg Terms of Service: https://service.org/tos',
  '',
  'URI: https://service.org/login',
  'Version: 1',
  'Chain ID: 1',
  'Nonce: 32891756',
  'Issued At: 2021-09-30T16:25:24Z',
  'Expiration Time: 2021-10-30T16:25:24Z',
  'Not Before: 2021-09-30T16:25:24Z',
  'Request ID: abc-123',
  'Resources:',
  '- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/',
  '- https://example.com/my-web2-claim.json',
].join('\n');

describe('parseSignInMessage', () => {
  it('parses every field of the EIP-4361 example', () => {
    expect(parseSignInMessage(example)).toEqual({
      domain: 'service.org',
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      statement: 'I accept the ServiceOrg Terms of Service: https://service.org/tos',
      uri: 'https://service.org/login',
      version: '1',
      chainId: 1,
      nonce: '32891756',
      issuedAt: new Date('2021-09-30T16:25:24Z'),
      expirationTime: new Date('2021-10-30T16:25:24Z'),
      notBefore: new Date('2021-09-30T16:25:24Z'),
      requestId: 'abc-123',
      resources: [
        'ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/',
        'https://example.com/my-web2-claim.json',
      ],
    });
  });

  it.each([
    ['an empty message', ''],
    ['a missing nonce line', example.replace('Nonce: 32891756\n', '')],
    ['a short nonce', example.replace('Nonce: 32891756', 'Nonce: 1234')],
    ['version 2', example.replace('Version: 1', 'Version: 2')],
    ['a bad date', example.replace('Issued At: 2021-09-30T16:25:24Z', 'Issued At: yesterday')],
    ['a lower-case address', example.replace(/0xf39F\w+/, (a) => a.toLowerCase())],
  ])('refuses %s as INVALID_SIGNATURE "does not parse"', (_what, message) => {
    let caught: unknown;
    try {
      parseSignInMessage(message);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProblemError);
    expect(caught).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401 });
    expect((caught as ProblemError).message).toMatch(/^The sign-in message does not parse as EIP-4361: \S/);
    expect((caught as ProblemError).message).not.toContain('\n');
  });
});

describe('normalizeDomain', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['localhost:3000', 'localhost:3000'],
    ['https://App.Example.com/', 'app.example.com'],
    ['http://localhost:3000/path', 'localhost:3000'],
    ['user@example.com:8443', 'example.com:8443'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeDomain(input)).toBe(expected);
  });
});
