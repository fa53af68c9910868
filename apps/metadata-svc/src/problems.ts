import { defineProblems } from '@nrp/validation';

/** The metadata service's own problems (sign-in problems come from `@nrp/auth`). */
export const problems = defineProblems({
  NOT_SUBNAME_OWNER: {
    status: 403,
    title: 'Not the owner of the name',
    hint: 'Sign in with the wallet that owns the name (the NameWrapper owner for wrapped names, the offchain owner for offchain subnames, the holder of its token on the L2 registry for L2 subnames).',
  },
  IMAGE_NOT_FOUND: {
    status: 404,
    title: 'No image',
    hint: 'The name has no confirmed image of this kind. A pending upload becomes visible once the text record is set and it is confirmed: by the worker within PENDING_CHECK_INTERVAL_MS, or at once with POST …/confirm.',
  },
  PENDING_UPLOAD_NOT_FOUND: {
    status: 404,
    title: 'No pending upload',
    hint: 'Nothing of this name and kind waits for its text record: it was confirmed already (GET the stable URL), discarded after PENDING_WINDOW_MS, or never uploaded.',
  },
  RECORD_NOT_SET: {
    status: 409,
    title: 'Text record not set',
    hint: 'Set the text record of the name to the stable URL of the image (the `url` of the upload answer) first; retry once the transaction is mined.',
  },
  TOKEN_NOT_FOUND: {
    status: 404,
    title: 'Unknown token',
    hint: 'The token id (uint256 of the namehash) is neither a NameWrapper token on this chain nor an offchain subname, or (L2) not a live name of the registry: never registered, revoked or expired.',
  },
  UNKNOWN_CONTRACT: {
    status: 404,
    title: 'Unknown contract',
    hint: "Tokens are described for the network's NameWrapper (mainnet, sepolia) and for the L2Registry contracts this service is configured with (BASE_L2_REGISTRIES, BASE_SEPOLIA_L2_REGISTRIES).",
  },
  AVATAR_UNAVAILABLE: {
    status: 404,
    title: 'Avatar cannot be shown',
    hint: 'The record is set but gives no image; `reason` says why: unsupported-scheme, unsupported-chain, not-owned, url-refused, fetch-failed, too-large or not-an-image.',
  },
  UNSUPPORTED_CHAIN: {
    status: 404,
    title: 'Unsupported chain',
    hint: 'Use chain id 1 (mainnet) or 11155111 (sepolia). Tokens of the L2 registries (base, base-sepolia) are at /{network}/{contractAddress}/{tokenId}.',
  },
  NAME_EXPIRED: {
    status: 410,
    title: 'Name expired',
    hint: 'The name behind this token has expired; it has no metadata until it is registered again.',
  },
  NAME_PENDING_LIMIT: {
    status: 409,
    title: 'Too many pending uploads for this name',
    hint: "Other addresses have as many pending uploads of this name and kind as allowed (PENDING_UPLOADS_PER_NAME). The name's owner is never refused this way: sign in with the owner, or set the text record first so the upload is confirmed at once. Retry-After says when a slot frees.",
  },
  PENDING_UPLOAD_LIMIT: {
    status: 429,
    title: 'Too many pending uploads',
    hint: 'An address may have PENDING_UPLOADS_PER_UPLOADER uploads waiting for their text record. Set the records of the pending ones (or let them expire: Retry-After) before uploading more; replacing a pending upload of the same name does not count.',
  },
  FILE_TOO_LARGE: {
    status: 413,
    title: 'File too large',
    hint: 'Avatars may be at most 2 MB and headers 5 MB by default; the limit is in the detail.',
  },
  IMAGE_TOO_LARGE: {
    status: 413,
    title: 'Image too large to decode',
    hint: 'The decoded image has more pixels than MAX_IMAGE_PIXELS, decoding it takes longer than IMAGE_WORK_TIMEOUT_MS, or re-encoded it is over the 4 MiB a served image may be (see detail); scale it down or simplify it.',
  },
  INVALID_FILE_FORMAT: {
    status: 415,
    title: 'Unsupported file format',
    hint: 'Upload jpeg, png, gif, webp or svg. The type is detected from the bytes, not from the file name.',
  },
  MISSING_FILE: {
    status: 400,
    title: 'No file',
    hint: 'Send the image as the multipart field named like the path (`avatar` or `header`).',
  },
  EMPTY_FILE: {
    status: 400,
    title: 'Empty file',
    hint: 'The uploaded file has no bytes.',
  },
  INVALID_IMAGE: {
    status: 400,
    title: 'Image cannot be decoded',
    hint: 'The file looks like an image but is corrupt or truncated; re-export it.',
  },
  INVALID_MULTIPART: {
    status: 400,
    title: 'Malformed multipart body',
    hint: 'Send `multipart/form-data` with one file and the fields siweMessage, siweSignature and address.',
  },
});
