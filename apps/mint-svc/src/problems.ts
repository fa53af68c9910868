import { defineProblems } from '@nrp/validation';

export const mintProblems = defineProblems({
  LISTING_NOT_FOUND: {
    status: 404,
    title: 'No listing for this parent name',
    hint: 'The parent name is not listed for minting on this network; check the name and `network` (or `isTestnet`).',
  },
  MINT_NOT_ALLOWED: {
    status: 400,
    title: 'Mint not allowed',
    hint: '`validationErrors` lists why (the same values as the estimate); fix them or choose another label.',
  },
  NOT_PARENT_OWNER: {
    status: 403,
    title: 'Not the owner of the parent name',
    hint: 'Only the current on-chain owner of the parent name (NameWrapper owner when wrapped) manages its listing.',
  },
  PARENT_EXPIRED: {
    status: 410,
    title: 'Parent name expired',
    hint: 'The parent name has expired on-chain; its owner must renew it before subnames can be minted.',
  },
  PARENT_NOT_APPROVED: {
    status: 409,
    title: 'Parent has not approved the mint controller',
    hint: "The parent's owner must call setApprovalForAll(mintController, true) on the ENS registry (or on the NameWrapper for a wrapped parent) before subnames can be minted.",
  },
  L2_PARENT_NOT_SERVED: {
    status: 404,
    title: 'No L2 mint controller for this parent',
    hint: 'On an L2 a parent is listed only when one of the configured L2MintControllers (`BASE_L2_MINT_CONTROLLERS`, `BASE_SEPOLIA_L2_MINT_CONTROLLERS`) mints under it: its L2Registry must have this parent name.',
  },
  MINT_CONTROLLER_NOT_CONFIGURED: {
    status: 503,
    title: 'No mint controller on this network',
    hint: 'The operator has not configured a mint controller for this network (`<NETWORK>_MINT_CONTROLLER`, or `<L2>_L2_MINT_CONTROLLERS` for base and base-sepolia).',
  },
});
