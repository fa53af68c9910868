import { AbiCoder, Interface } from 'ethers';
import {
  UpstreamError,
  classifyResolveSlot,
  classifyRevert,
  proofVerifierInterface,
  universalResolverInterface,
} from '../src';

const abi = AbiCoder.defaultAbiCoder();
const ur = universalResolverInterface;
const errorString = new Interface(['error Error(string)']);
const custom = new Interface(['error Unauthorized(address who)']);
const TEXT = '0x59d1d43c';

const httpError = ur.encodeErrorResult('HttpError', [503, 'upstream unavailable']);
const unsupported = ur.encodeErrorResult('UnsupportedResolverProfile', [TEXT]);

describe('classifyResolveSlot: what the UniversalResolver leaves in a multicall slot', () => {
  it('an ABI-encoded answer (whole 32-byte words) is passed on', () => {
    const answer = abi.encode(['string'], ['alice']);
    expect(classifyResolveSlot(answer)).toBe(answer);
    const word = abi.encode(['address'], ['0x000000000000000000000000000000000000dEaD']);
    expect(classifyResolveSlot(word)).toBe(word);
  });

  it.each([
    ['an empty revert (resolver without that function)', '0x'],
    ['the call selector (the resolver answered nothing)', TEXT],
    ['UnsupportedResolverProfile(bytes4)', unsupported],
    ['ResolverError(UnsupportedResolverProfile)', ur.encodeErrorResult('ResolverError', [unsupported])],
    ['ResolverNotFound(bytes)', ur.encodeErrorResult('ResolverNotFound', ['0x00'])],
    [
      'ResolverError(0x) (a resolver without that function, one record)',
      ur.encodeErrorResult('ResolverError', ['0x']),
    ],
  ])('%s: the record is absent (null)', (_, slot) => {
    expect(classifyResolveSlot(slot)).toBeNull();
  });

  it.each([
    ['HttpError(uint16,string)', httpError, 'HttpError', 'gateway HTTP 503: upstream unavailable'],
    [
      'ResolverError(HttpError)',
      ur.encodeErrorResult('ResolverError', [httpError]),
      'HttpError',
      'gateway HTTP 503: upstream unavailable',
    ],
    [
      'Error(string) of a reverting callback',
      errorString.encodeErrorResult('Error', ['SignatureVerifier: Invalid signature']),
      'ResolverError',
      'resolver reverted: Error(SignatureVerifier: Invalid signature)',
    ],
    [
      'ResolverError(InvalidGatewayResponse) (undecodable gateway answer)',
      ur.encodeErrorResult('ResolverError', [
        new Interface(['error InvalidGatewayResponse()']).encodeErrorResult('InvalidGatewayResponse', []),
      ]),
      'ResolverError',
      'resolver reverted: InvalidGatewayResponse()',
    ],
  ])('%s is an UpstreamError carrying the upstream code and message', (_, slot, code, message) => {
    const outcome = classifyResolveSlot(slot, 'resolving a.eth: text("x")');
    expect(outcome).toBeInstanceOf(UpstreamError);
    expect(outcome).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstreamCode: code,
      upstreamMessage: message,
      message: `resolving a.eth: text("x"): ${message}`,
    });
  });

  it.each([
    [
      'CommitTooOld',
      ['CommitTooOld', [9, 2, 3]],
      'CommitTooOld: the proofs are against L2 root 2, older than the verifier accepts (latest 9, window 3)',
    ],
    [
      'CommitTooNew',
      ['CommitTooNew', [9, 12]],
      'CommitTooNew: the proofs are against L2 root 12, newer than the verifier accepts (latest 9)',
    ],
    [
      'OutputNotFound',
      ['OutputNotFound', []],
      'OutputNotFound: the proofs name an L2 root the rollup has not posted',
    ],
    ['InvalidProof', ['InvalidProof', []], 'InvalidProof: a proof does not verify'],
  ] as const)(
    'a proving resolver’s refusal (%s) says in words which root it refused',
    (_name, [error, args], words) => {
      const refusal = proofVerifierInterface.encodeErrorResult(error, args);
      expect(classifyRevert(ur.encodeErrorResult('ResolverError', [refusal]))).toEqual({
        code: 'ResolverError',
        message: `resolver reverted: ${words}`,
      });
    },
  );

  it('an unknown revert is a ResolverError quoting the raw revert data', () => {
    const data = custom.encodeErrorResult('Unauthorized', ['0x000000000000000000000000000000000000dEaD']);
    expect(classifyRevert(data)).toEqual({ code: 'ResolverError', message: `resolver reverted: ${data}` });
  });
});
