/**
 * The mint controllers' `mint` (MintController on an L1, L2MintController on an L2: the same arguments) as a JSON
 * ABI typed `as const`, so viem checks the arguments. No imports: a page bundles it alone
 * (`@nrp/contracts/mint-controller-abi`); test/artifacts.test.ts checks it against the compiled contracts.
 */
export const MINT_CONTROLLER_MINT_ABI = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'payable',
    inputs: [
      {
        name: 'ctx',
        type: 'tuple',
        components: [
          { name: 'owner', type: 'address' },
          { name: 'label', type: 'string' },
          { name: 'parentNode', type: 'bytes32' },
          { name: 'price', type: 'uint256' },
          { name: 'fee', type: 'uint256' },
          { name: 'paymentReceiver', type: 'address' },
          { name: 'expiry', type: 'uint64' },
          { name: 'signatureExpiry', type: 'uint256' },
          { name: 'verifiedMinter', type: 'address' },
          { name: 'fuses', type: 'uint32' },
        ],
      },
      { name: 'sig', type: 'bytes' },
      { name: 'resolverData', type: 'bytes[]' },
      { name: 'extraData', type: 'bytes' },
    ],
    outputs: [],
  },
] as const;
