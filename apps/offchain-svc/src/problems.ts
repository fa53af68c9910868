import { defineProblems } from '@nrp/validation';

export const offchainProblems = defineProblems({
  SUBNAME_NOT_FOUND: {
    status: 404,
    title: 'Subname not found',
    hint: 'No offchain subname has this name (or namehash); create it with POST /api/v1/subnames.',
  },
  PARENT_NOT_ALLOWED: {
    status: 403,
    title: 'API key not valid for this parent',
    hint: 'The key in `x-auth-token` was issued for other parent names; ask the operator for a key for this one.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: 'Idempotency-Key reused',
    hint: 'This Idempotency-Key answered a different request (body or ?atomic); use a new key for a new request.',
  },
  INVALID_WEBHOOK_URL: {
    status: 400,
    title: 'Webhook URL refused',
    hint: 'Use an https URL of a public host (no loopback, private or link-local addresses).',
  },
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    title: 'Too many webhooks',
    hint: 'An API key has at most 20 webhooks; delete one first.',
  },
  WEBHOOK_NOT_FOUND: {
    status: 404,
    title: 'Webhook not found',
    hint: 'No webhook (or delivery) with this id belongs to the API key in `x-auth-token`.',
  },
  EVENTS_INGEST_NOT_CONFIGURED: {
    status: 503,
    title: 'Event ingest not configured',
    hint: 'The operator must set EVENTS_INGEST_TOKEN (the same value in metadata-svc and mint-svc).',
  },
  INVALID_CCIP_REQUEST: {
    status: 400,
    title: 'Invalid CCIP-Read request',
    hint: 'Send `resolve(bytes name, bytes data)` callData from an OffchainResolver lookup (EIP-3668).',
  },
  UNSUPPORTED_RESOLVER_CALL: {
    status: 400,
    title: 'Unsupported resolver function',
    hint: 'The gateway answers addr(bytes32), addr(bytes32,uint256), text, contenthash and multicall of those.',
  },
  NOT_NAME_MANAGER: {
    status: 403,
    title: 'Not the controller of this name',
    hint: 'Sign in with the address that controls the name on chain now: its NameWrapper owner when wrapped, else its registry owner (the `.eth` registrant alone is not enough: reclaim the name first).',
  },
  KEY_OWNER_CHANGED: {
    status: 401,
    title: 'API key issuer no longer controls the name',
    hint: 'The key was issued by an address that no longer controls its parent name on chain; the controller now can sign in and issue a new key.',
  },
  KEY_LIMIT_REACHED: {
    status: 409,
    title: 'Too many API keys',
    hint: 'Revoke a key you no longer use (DELETE /api/v1/keys/{id}), then issue the new one.',
  },
  KEY_NOT_FOUND: {
    status: 404,
    title: 'API key not found',
    hint: 'No live key with this id was issued by the signed-in address (GET /api/v1/keys lists them).',
  },
  OFFCHAIN_RESOLVER_NOT_CONFIGURED: {
    status: 503,
    title: 'Offchain resolver not configured',
    hint: 'The operator must set <NETWORK>_OFFCHAIN_RESOLVER (the address of our offchain resolver on that network).',
  },
  GATEWAY_NOT_CONFIGURED: {
    status: 503,
    title: 'CCIP-Read gateway not configured',
    hint: 'The operator must set GATEWAY_SIGNER_KEY.',
  },
  L2_REGISTRY_NOT_SERVED: {
    status: 404,
    title: 'L2 registry not served',
    hint: 'This gateway reads only the L2Registry contracts in <L2>_L2_REGISTRIES (e.g. BASE_SEPOLIA_L2_REGISTRIES); check the resolver URL or ask the operator to add the registry.',
  },
  L2_UNAVAILABLE: {
    status: 503,
    title: 'L2 unavailable',
    hint: 'The L2 RPC node did not answer (unreachable or timed out); nothing was signed. Retry after `Retry-After` seconds.',
  },
  L2_STALE: {
    status: 503,
    title: 'L2 state too old',
    hint: 'The L2 RPC node’s latest block is older than L2_MAX_BLOCK_AGE_SECONDS (the node is not syncing); nothing was signed. Retry after `Retry-After` seconds.',
  },
});
